import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchFirstFrame } from './video-element.js';

/** A <video> with no frame yet: the test presents frames through its frame callbacks. */
class FakeVideo {
  videoWidth = 0;
  videoHeight = 0;
  readonly callbacks: VideoFrameRequestCallback[] = [];
  requestVideoFrameCallback(cb: VideoFrameRequestCallback): number {
    this.callbacks.push(cb);
    return this.callbacks.length;
  }
  /** A frame is shown: the callbacks asked for so far are called (once each). */
  present(width: number, height: number): void {
    this.videoWidth = width;
    this.videoHeight = height;
    for (const cb of this.callbacks.splice(0)) cb(0, { width, height } as VideoFrameCallbackMetadata);
  }
}

const noStats = { getStats: () => Promise.resolve(new Map()) } as unknown as RTCPeerConnection;

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('watchFirstFrame', () => {
  it('with a video element, reports the first frame shown (asked for before any frame), once', async () => {
    const video = new FakeVideo();
    const seen: string[] = [];
    watchFirstFrame(
      noStats,
      () => video as unknown as HTMLVideoElement,
      (w, h) => seen.push(`${w}x${h}`),
    );
    expect(video.callbacks).toHaveLength(1); // at once, while the element has no frame yet
    video.present(512, 512);
    await vi.advanceTimersByTimeAsync(500);
    video.present(512, 512);
    expect(seen).toEqual(['512x512']);
  });

  it('an element attached later is watched from then on; stopped, nothing is reported', async () => {
    const page: { video?: FakeVideo } = {};
    const seen: string[] = [];
    const stop = watchFirstFrame(
      noStats,
      () => page.video as unknown as HTMLVideoElement | undefined,
      (w, h) => seen.push(`${w}x${h}`),
    );
    await vi.advanceTimersByTimeAsync(200);
    const video = (page.video = new FakeVideo());
    await vi.advanceTimersByTimeAsync(50);
    expect(video.callbacks).toHaveLength(1);
    stop();
    video.present(640, 480);
    expect(seen).toEqual([]);
  });
});
