import { describe, expect, it } from 'vitest';
import { createAnimator } from '../animation/animator.js';
import { TICK_MS } from '../clock/media-clock.js';
import type { VideoSink } from '../contract/media.js';
import type { Peer } from '../contract/peer.js';
import type { Renderer } from '../render/renderer.js';
import { NEW_VIEWER_MS, REFRESH_MS, SessionFrames } from './session-frames.js';
import { SpeechPlayer } from './speech-player.js';

const FPS = 25;

/** A sink counting what reaches the encoder, and a renderer whose frames change when told. */
function parts() {
  const sink = { regions: 0, repeats: 0 };
  const videoSink: VideoSink = {
    width: 4,
    height: 4,
    writeI420: () => {},
    writeRgba: () => {},
    writeRgbaRegion: () => sink.regions++,
    repeat: () => sink.repeats++,
  };
  const face = { changes: true };
  const renderer: Renderer = {
    width: 4,
    height: 4,
    render: () => new Uint8ClampedArray(64),
    renderRegion: () =>
      face.changes ? { region: { x: 0, y: 0, width: 2, height: 2 }, rgba: new Uint8ClampedArray(16) } : null,
    close: () => {},
  };
  const frames = new SessionFrames({
    fps: FPS,
    phase: 0,
    player: new SpeechPlayer(),
    animator: createAnimator({ seed: 1 }),
    aheadSamples: 0,
    videoSink,
    renderer,
  });
  return { frames, sink, face };
}

const viewer = (): Peer => ({}) as Peer;

/** Runs the media clock from tick `from` for `ms`, a frame every 40 ms. */
function run(frames: SessionFrames, peer: Peer, from: number, ms: number): number {
  const ticks = ms / TICK_MS;
  for (let t = from; t < from + ticks; t++) frames.tick(peer, false, t, 0, 0);
  return from + ticks;
}

describe('SessionFrames: unchanged frames held back from the encoder', () => {
  it('hands over every changed frame, and every frame for a new viewer’s first seconds', () => {
    const { frames, sink, face } = parts();
    const peer = viewer();
    let t = run(frames, peer, 0, 1000);
    expect(sink.regions).toBe(FPS); // changing: all of them
    face.changes = false;
    t = run(frames, peer, t, NEW_VIEWER_MS - 1000);
    // unchanged, but the viewer is new: repeated at the full rate
    expect(sink.repeats).toBe(((NEW_VIEWER_MS - 1000) / 1000) * FPS);
    expect(frames.held).toBe(0);
    const repeats = sink.repeats;
    run(frames, peer, t, 2000);
    // after: an unchanged frame goes only when the last went REFRESH_MS ago or more
    const refreshes = sink.repeats - repeats;
    // (frames come every 40 ms: a refresh once REFRESH_MS or more has passed)
    const gap = Math.ceil(REFRESH_MS / 40) * 40;
    expect(refreshes).toBeGreaterThanOrEqual(Math.floor(2000 / gap));
    expect(refreshes).toBeLessThanOrEqual(Math.ceil(2000 / gap));
    expect(frames.held).toBe(2 * FPS - refreshes);
    expect(frames.sent).toBe(sink.regions + sink.repeats);
  });

  it('a frame that changes goes at once, however recent the last', () => {
    const { frames, sink, face } = parts();
    const peer = viewer();
    let t = run(frames, peer, 0, NEW_VIEWER_MS);
    face.changes = false;
    t = run(frames, peer, t, 400);
    const before = sink.regions;
    face.changes = true;
    run(frames, peer, t, 40);
    expect(sink.regions).toBe(before + 1);
  });

  it('a new viewer, or the same one connected again, gets every frame again', () => {
    const { frames, sink, face } = parts();
    face.changes = false;
    let t = run(frames, viewer(), 0, NEW_VIEWER_MS + 1000);
    const held = frames.held;
    expect(held).toBeGreaterThan(0);
    const second = viewer();
    t = run(frames, second, t, 1000);
    expect(frames.held).toBe(held); // a new peer: every frame
    t = run(frames, second, t, NEW_VIEWER_MS);
    const again = frames.held;
    expect(again).toBeGreaterThan(held);
    frames.viewerConnected(); // e.g. after an ICE restart
    const repeats = sink.repeats;
    run(frames, second, t, 1000);
    expect(frames.held).toBe(again);
    expect(sink.repeats - repeats).toBe(FPS);
  });
});
