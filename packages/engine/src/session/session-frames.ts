/**
 * A session's frames (engine-session.ts hands it each tick once the tick's audio is out): when the
 * session's frame is due (frame-clock.ts: its own phase), the face state (face-frame.ts) is
 * rendered into the video sink for a viewer with video, or sent as a binary animation frame to a
 * viewer that draws the avatar itself. Counts what it sent, held and skipped, for stats.
 *
 * A frame the renderer reports unchanged (vector, sprite and photo avatars between a blink and a
 * breath: about half of an idle session's frames) is not handed to the encoder, which would
 * spend as much on it as on a changed one (docs/benchmarks-changelog.md, "The video encoder's
 * floor"): the viewer's decoder shows the last frame until the next. It is held at most
 * REFRESH_MS, so a key frame a viewer asks for after a loss waits no longer than that and the
 * stream never looks stopped (the SDK's media watchdog waits 1.5 s); and a viewer that has just
 * connected gets every frame for NEW_VIEWER_MS (its first key frame at once, its decoder's and
 * jitter buffer's first estimates from a full rate).
 */
import { encodeAnimationFrame } from '@mouthpiece/protocol';
import type { Animator } from '../animation/animator.js';
import { TICK_MS } from '../clock/media-clock.js';
import type { VideoSink } from '../contract/media.js';
import type { Peer } from '../contract/peer.js';
import type { Renderer } from '../render/renderer.js';
import { faceState, toAnimationFrame } from './face-frame.js';
import { FrameClock } from './frame-clock.js';
import type { SpeechPlayer } from './speech-player.js';

export interface SessionFramesParts {
  fps: number;
  /** The session's phase in ticks (spreads the frames of many sessions over the frame interval). */
  phase: number;
  player: SpeechPlayer;
  animator: Animator;
  /** How far past the audio handed over a frame samples the mouth (face-frame.ts). */
  aheadSamples: number;
  /** Without both, no video frame is made (a renderer alone still picks a video avatar's frames). */
  videoSink?: VideoSink | undefined;
  renderer?: Renderer | undefined;
}

/** The longest an unchanged frame is held back from the encoder (ms of the media clock). */
export const REFRESH_MS = 100;
/** After a viewer connects, every frame goes to the encoder for this long (ms). */
export const NEW_VIEWER_MS = 2000;

interface Video {
  sink: VideoSink;
  renderer: Renderer;
  /** Made on the first rendered frame (a session whose viewers draw themselves never needs it). */
  i420: Uint8Array | undefined;
}

export class SessionFrames {
  readonly #o: SessionFramesParts;
  readonly #clock: FrameClock;
  readonly #video: Video | undefined;
  /** Frames handed to the encoder, held back unchanged, and skipped in late batches, for stats. */
  sent = 0;
  held = 0;
  skipped = 0;
  /** When a frame last went to the encoder, and until when every frame does (media clock ms). */
  #lastSentMs = -Infinity;
  #everyFrameUntil = -Infinity;
  /** The viewer the every-frame stretch began for (undefined: the next tick's viewer starts one). */
  #viewer: Peer | undefined;
  /** Animation frames sent to viewers that draw the avatar themselves, for stats. */
  animationSent = 0;

  constructor(o: SessionFramesParts) {
    this.#o = o;
    this.#clock = new FrameClock({ phase: o.phase, fps: o.fps });
    this.#video = o.videoSink && o.renderer && { sink: o.videoSink, renderer: o.renderer, i420: undefined };
  }

  /** A turn's speech starts on this tick: a frame is made on it (frame-clock.ts), not at the cadence's next. */
  speechStarts(): void {
    this.#clock.speechStarts();
  }

  /** A viewer (a new one, or the same after its connection came back) is connected: send it every frame for a while. */
  viewerConnected(): void {
    this.#viewer = undefined;
  }

  /** Whether this session can make video frames (a sink and a renderer). */
  get hasVideo(): boolean {
    return this.#video !== undefined;
  }

  /**
   * The frame of tick `tickIndex` when one is due. In a late catch-up batch (`ticksLeft` more
   * ticks follow), a video frame is skipped only when a newer frame of this session is due later in
   * the same batch: a slightly late frame is still sent. An animation frame goes with the audio
   * handed over on this same tick (`samples` so far), so even in a late batch it is no later than
   * the sound it belongs to (the SDK places it by its stamp): never skipped.
   */
  tick(viewer: Peer, draws: boolean, tickIndex: number, ticksLeft: number, samples: number): void {
    const due = this.#clock.at(tickIndex, ticksLeft);
    if (due === undefined) return;
    if (viewer !== this.#viewer) {
      this.#viewer = viewer;
      this.#everyFrameUntil = tickIndex * TICK_MS + NEW_VIEWER_MS;
    }
    if (draws) this.#sendAnimation(viewer, tickIndex * TICK_MS, samples);
    else if (due === 'skip') this.skipped++;
    else if (this.#video) this.#render(this.#video, tickIndex * TICK_MS);
  }

  close(): void {
    this.#video?.renderer.close();
  }

  #state(nowMs: number) {
    return faceState(this.#o.player, this.#o.aheadSamples, this.#o.animator, nowMs);
  }

  #render(video: Video, nowMs: number): void {
    const state = this.#state(nowMs);
    const { renderer, sink } = video;
    if (renderer.renderI420) {
      video.i420 ??= new Uint8Array((sink.width * sink.height * 3) / 2);
      renderer.renderI420(state, video.i420);
      sink.writeI420(video.i420);
    } else if (renderer.renderRegion) {
      // only what changed is drawn, read back and converted; an unchanged frame is held back, up
      // to REFRESH_MS, unless the viewer is new
      const changed = renderer.renderRegion(state);
      if (changed) sink.writeRgbaRegion(changed.region, changed.rgba);
      else if (nowMs - this.#lastSentMs >= REFRESH_MS || nowMs < this.#everyFrameUntil) sink.repeat();
      else {
        this.held++;
        return;
      }
    } else sink.writeRgba(renderer.render(state));
    this.#lastSentMs = nowMs;
    this.sent++;
  }

  /**
   * The frame's state, as the renderer would have drawn it, stamped with the sample it belongs to:
   * the mouth is sampled `aheadSamples` past the audio just handed to the sink (the frame's centre).
   */
  #sendAnimation(viewer: Peer, nowMs: number, samples: number): void {
    const state = this.#state(nowMs);
    const pick = this.#o.renderer?.pick?.(state);
    const sampleIndex = samples + this.#o.aheadSamples;
    viewer.sendBinary(encodeAnimationFrame(toAnimationFrame(state, sampleIndex, pick)));
    this.animationSent++;
  }
}
