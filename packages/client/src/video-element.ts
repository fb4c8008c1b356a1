/**
 * The avatar's <video> element and when its first frame shows: creating it as the client contract asks (docs/design.md §5.2)
 * (autoplay, playsinline, 100 %), playing with sound and falling back to muted when autoplay is
 * blocked, and spotting the first decoded frame.
 */
import type { WhepConnection } from './whep-client.js';

export function styleVideo(video: HTMLVideoElement): HTMLVideoElement {
  video.autoplay = true;
  video.playsInline = true;
  video.setAttribute('playsinline', '');
  video.style.width = '100%';
  video.style.height = '100%';
  return video;
}

/** Plays with sound; if the browser blocks that, plays muted and calls `onBlocked`. */
export function playWithFallback(video: HTMLVideoElement, onBlocked: () => void): void {
  video.muted = false;
  video.play().catch(() => {
    video.muted = true;
    void video.play().catch(() => undefined);
    onBlocked();
  });
}

/**
 * Calls `onFirstFrame` once, at the first frame of this connection: from the video element's
 * frame callback when one is attached, else from the receiver's `framesDecoded`. Stops when
 * `isCurrent` turns false (the connection was replaced or closed).
 */
export function watchFirstFrame(
  whep: WhepConnection,
  video: () => HTMLVideoElement | undefined,
  isCurrent: () => boolean,
  onFirstFrame: (width: number, height: number) => void,
): void {
  let sent = false;
  const ready = (width: number, height: number): void => {
    if (sent || !isCurrent()) return;
    sent = true;
    onFirstFrame(width, height);
  };
  const poll = setInterval(() => {
    if (sent || !isCurrent()) return clearInterval(poll);
    const v = video();
    if (v && 'requestVideoFrameCallback' in v && v.videoWidth > 0) {
      v.requestVideoFrameCallback(() => ready(v.videoWidth, v.videoHeight));
      return clearInterval(poll);
    }
    void whep.pc.getStats().then((stats) =>
      stats.forEach(
        (s: {
          type: string;
          kind?: string;
          framesDecoded?: number;
          frameWidth?: number;
          frameHeight?: number;
        }) => {
          if (s.type === 'inbound-rtp' && s.kind === 'video' && (s.framesDecoded ?? 0) > 0)
            ready(s.frameWidth ?? 0, s.frameHeight ?? 0);
        },
      ),
    );
  }, 50);
}
