/**
 * Client rendering of one session, whole (`render: 'client'`, docs/design.md §13.4): the loaded
 * pack and its renderer on a canvas (canvas-view.ts), the audio element that plays the session's
 * audio (there is no video element to play it), and the sampling of the receiver's audio delay
 * and of the output's latency (output-latency.ts) that place frames in time, all from the session's
 * media link (media-link.ts). It outlives reconnects: a new connection only resets the frame
 * clock (reset()) and gives the audio element its stream. `open()` rejects with
 * RendererUnavailable when this page cannot draw the avatar; the caller then runs the session as
 * video.
 */
import type { StreamTiming } from '@mouthpiece/protocol';
import type { MediaLink } from '../media-link.js';
import { playWithFallback } from '../video-element.js';
import { CanvasView } from './canvas-view.js';
import { CONTEXT_RESTORE_MS } from './context-loss.js';
import { audioDelayMs, type AudioStatsSample } from './frame-clock.js';
import {
  ContextLatencyProbe,
  playoutLatencyMs,
  playoutStats,
  type LatencyContext,
  type PlayoutStatsSample,
} from './output-latency.js';
import { pagePackLoader, type PackLoader } from './pack-loader.js';
import { RENDERERS } from './renderers.js';
import { RendererUnavailable, type AvatarKind, type LoadedPack, type RendererFactory } from './types.js';

/**
 * How often the receiver's jitter-buffer delay is read: each reading is the mean over the interval
 * since the last, and under load the buffer moves by 100 ms within a second (bench:avsync), so a
 * reading a second old placed frames tens of ms off.
 */
export const AUDIO_STATS_EVERY_MS = 250;

export interface ClientRenderOptions {
  baseUrl: string;
  sessionId: string;
  token: string;
  /**
   * The session's media (media-link.ts): each new connection's stream plays in the audio element
   * and resets the frame clock, its animation frames are drawn, its stats place them in time, and
   * the first frame drawn since a connection opened is told to it (it sends `ready`).
   */
  link: MediaLink;
  /** The canvas's context was lost and not restored in time: this page can no longer draw it. */
  contextGaveUp(message: string): void;
  /** The browser would not play the audio with sound (it plays muted until unmute()). */
  autoplayBlocked(): void;
  /** Injected for tests: the AudioContext the output latency is asked of (output-latency.ts). */
  audioContext?: () => LatencyContext | undefined;
  /** Injected for tests: the pack loader and the renderers by kind. */
  loader?: PackLoader;
  renderers?: Readonly<Record<AvatarKind, RendererFactory | undefined>>;
}

export class ClientRender {
  readonly pack: LoadedPack;
  readonly #view: CanvasView;
  readonly #audio: HTMLAudioElement;
  readonly #o: ClientRenderOptions;
  readonly #statsTimer: ReturnType<typeof setInterval>;
  readonly #unsubscribe: Array<() => void>;
  #lastStats: AudioStatsSample | undefined;
  #lastPlayout: PlayoutStatsSample | undefined;
  /** Readings without `media-playout` stats (then an AudioContext is asked: output-latency.ts). */
  #withoutPlayout = 0;
  readonly #probe: ContextLatencyProbe;

  /** Loads the pack and makes its renderer on a new canvas (not in the page until attach()). */
  static async open(o: ClientRenderOptions): Promise<ClientRender> {
    const pack = await (o.loader ?? pagePackLoader).load(o.baseUrl, o.sessionId, o.token);
    const factory = (o.renderers ?? RENDERERS)[pack.render];
    if (!factory)
      throw new RendererUnavailable(
        'unsupported-kind',
        `this SDK does not draw ${pack.render} avatars in the browser yet; the server sends video`,
      );
    const canvas = document.createElement('canvas');
    let renderer;
    try {
      renderer = await factory(pack, canvas, pack.background ? { background: pack.background } : {});
    } catch (err) {
      if (err instanceof RendererUnavailable) throw err;
      throw new RendererUnavailable(
        'pack-failed',
        `the ${pack.render} renderer failed (${err instanceof Error ? err.message : String(err)})`,
      );
    }
    const view = new CanvasView(canvas, renderer, aspectOf(pack), {
      firstDraw: (s) => o.link.drawn(s),
      contextGaveUp: () =>
        o.contextGaveUp(
          `the canvas's ${pack.render === 'photo' ? 'WebGL' : '2D'} context was lost and not restored within ${CONTEXT_RESTORE_MS / 1000} s`,
        ),
    });
    return new ClientRender(pack, view, o);
  }

  private constructor(pack: LoadedPack, view: CanvasView, o: ClientRenderOptions) {
    this.pack = pack;
    this.#view = view;
    this.#o = o;
    this.#audio = document.createElement('audio');
    this.#audio.autoplay = true;
    this.#probe = new ContextLatencyProbe(o.audioContext);
    this.#statsTimer = setInterval(() => void this.#sampleAudio(), AUDIO_STATS_EVERY_MS);
    this.#unsubscribe = [
      o.link.on('opened', ({ stream }) => this.#connected(stream)),
      o.link.on('animation', ({ frame, arrivalMs }) => this.#view.push(frame, arrivalMs)),
    ];
  }

  get canvas(): HTMLCanvasElement {
    return this.#view.canvas;
  }

  /** Puts the canvas (and the audio element) into the app's container. */
  attach(container: HTMLElement): HTMLCanvasElement {
    this.#view.attach(container);
    container.appendChild(this.#audio);
    return this.#view.canvas;
  }

  /** A new connection: its stream plays, its frames map anew, its first drawn frame is reported. */
  #connected(stream: MediaStream): void {
    this.#view.reset();
    this.#lastStats = undefined;
    this.#lastPlayout = undefined;
    this.#audio.srcObject = stream;
    playWithFallback(this.#audio, () => this.#o.autoplayBlocked());
  }

  /** How the engine times the stream, from the connection's `hello` (frames are placed by it). */
  timing(timing: StreamTiming): void {
    this.#view.clock.setTiming(timing);
  }

  unmute(): void {
    this.#audio.muted = false;
    void this.#audio.play().catch(() => undefined);
  }

  close(): void {
    for (const off of this.#unsubscribe.splice(0)) off();
    clearInterval(this.#statsTimer);
    this.#probe.close();
    this.#view.close();
    this.#audio.srcObject = null;
    this.#audio.remove();
  }

  async #sampleAudio(): Promise<void> {
    let report: RTCStatsReport | undefined;
    try {
      report = await this.#o.link.stats();
    } catch {
      return; // a connection closed meanwhile: the next one is sampled
    }
    const sample = report && inboundAudio(report);
    if (!report || !sample) return;
    const ms = audioDelayMs(this.#lastStats, sample);
    this.#lastStats = sample;
    if (ms !== undefined) this.#view.clock.setAudioDelay(ms);
    this.#sampleOutput(report, sample.playoutId);
  }

  /** The output latency: the audio's own playout stats, else (once) an AudioContext's estimate. */
  #sampleOutput(report: RTCStatsReport, playoutId: string | undefined): void {
    const playout = playoutStats(report, playoutId);
    let ms: number | undefined;
    if (playout) {
      ms = playoutLatencyMs(this.#lastPlayout, playout);
      this.#lastPlayout = playout;
      this.#probe.close();
    } else if (++this.#withoutPlayout >= 2 && !this.#audio.paused && !this.#audio.muted) {
      ms = this.#probe.poll(); // (with sound playing: the page may start an AudioContext)
    }
    if (ms !== undefined) this.#view.clock.setOutputLatency(ms);
  }
}

/** The inbound-rtp audio entry's jitter-buffer counters, and the id of its playout's stats. */
export function inboundAudio(
  report: Pick<RTCStatsReport, 'forEach'>,
): (AudioStatsSample & { playoutId?: string }) | undefined {
  let found: (AudioStatsSample & { playoutId?: string }) | undefined;
  report.forEach(
    (s: {
      type?: string;
      kind?: string;
      jitterBufferDelay?: number;
      jitterBufferEmittedCount?: number;
      playoutId?: string;
    }) => {
      if (s.type === 'inbound-rtp' && s.kind === 'audio' && typeof s.jitterBufferDelay === 'number')
        found = {
          jitterBufferDelay: s.jitterBufferDelay,
          jitterBufferEmittedCount: s.jitterBufferEmittedCount ?? 0,
          ...(typeof s.playoutId === 'string' ? { playoutId: s.playoutId } : {}),
        };
    },
  );
  return found;
}

/** The avatar's width / height: a manifest's `size` where it has one, else square (512² design). */
export function aspectOf(pack: LoadedPack): number {
  const size = pack.manifest['size'] as { width?: unknown; height?: unknown } | undefined;
  return typeof size?.width === 'number' && typeof size.height === 'number' && size.height > 0
    ? size.width / size.height
    : 1;
}
