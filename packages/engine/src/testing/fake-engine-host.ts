/**
 * An in-memory EngineHost for control-plane tests: no media, but the same speech-queue semantics
 * as the real engine (order, turns, isFinal, auto-finalize, interrupt, discarded turnIds), with
 * playback time derived from text length and speed on an injected clock. Never the default
 * engine of a running server.
 */
import { randomUUID } from 'node:crypto';
import type { AvatarInfo, VoiceInfo } from '@mouthpiece/protocol';
import { SpeechQueue, type QueueClock } from '../session/speech-queue.js';
import {
  EngineError,
  type AudioClip,
  type EngineCatalog,
  type EngineEvent,
  type EngineHost,
  type EngineSessionOptions,
  type EngineMediaStats,
  type EngineStats,
  type QueueAnswer,
  type SayAudioAnswer,
  type TextChunk,
  type ViewerAnswer,
  type ViewerOffer,
} from '../host/types.js';
import { hasMedia, offerProblem } from '../rtc/sdp.js';
import { sniffAudio } from './sniff-audio.js';

export const FAKE_AVATARS: readonly AvatarInfo[] = [
  { id: 'amara', name: 'Amara', width: 512, height: 512 },
  { id: 'jonas', name: 'Jonas', width: 512, height: 512 },
  { id: 'mei', name: 'Mei', width: 512, height: 512 },
];

export const FAKE_VOICES: readonly VoiceInfo[] = [
  { id: 'en-us-female', name: 'English (US), female', language: 'en-US', gender: 'female' },
  { id: 'en-us-male', name: 'English (US), male', language: 'en-US', gender: 'male' },
  { id: 'de-female', name: 'German, female', language: 'de-DE', gender: 'female' },
];

export interface FakeEngineHostOptions {
  clock?: QueueClock;
  avatars?: readonly AvatarInfo[];
  voices?: readonly VoiceInfo[];
  /** Playback time per character at speed 1 (default 60 ms). */
  msPerCharacter?: number;
  autoFinalizeMs?: number;
}

interface AudioItem {
  durationMs: number;
}

interface FakeSession {
  opts: EngineSessionOptions;
  queue: SpeechQueue<AudioItem>;
  viewerId: string | undefined;
  playing: { turnId: string; timer: unknown } | undefined;
}

/** One line per thing the fake was asked or did, for assertions. */
export type FakeEngineCall =
  | { op: 'createSession'; sessionId: string; opts: EngineSessionOptions }
  | { op: 'closeSession'; sessionId: string; reason: string }
  | { op: 'interrupt'; sessionId: string; cleared: string[] }
  | { op: 'connectViewer'; sessionId: string; viewerId: string }
  | { op: 'disconnectViewer'; sessionId: string; viewerId: string }
  | { op: 'addIceCandidates'; sessionId: string; viewerId: string; sdpFragment: string };

const systemClock: QueueClock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export class FakeEngineHost implements EngineHost {
  readonly #clock: QueueClock;
  readonly #catalog: EngineCatalog;
  readonly #msPerCharacter: number;
  readonly #autoFinalizeMs: number | undefined;
  readonly #sessions = new Map<string, FakeSession>();
  readonly #listeners = new Set<(e: EngineEvent) => void>();
  readonly calls: FakeEngineCall[] = [];
  readonly events: EngineEvent[] = [];
  #closed = false;

  constructor(opts: FakeEngineHostOptions = {}) {
    this.#clock = opts.clock ?? systemClock;
    const voices = [...(opts.voices ?? FAKE_VOICES)];
    this.#catalog = {
      avatars: [...(opts.avatars ?? FAKE_AVATARS)],
      voices,
      defaultVoiceId: voices[0]?.id ?? 'en-us-female',
    };
    this.#msPerCharacter = opts.msPerCharacter ?? 60;
    this.#autoFinalizeMs = opts.autoFinalizeMs;
  }

  catalog(): EngineCatalog {
    return this.#catalog;
  }

  createSession(opts: EngineSessionOptions): Promise<void> {
    return attempt(() => this.#createSession(opts));
  }

  #createSession(opts: EngineSessionOptions): void {
    this.#assertOpen();
    const queue = new SpeechQueue<AudioItem>({
      clock: this.#clock,
      ...(this.#autoFinalizeMs !== undefined ? { autoFinalizeMs: this.#autoFinalizeMs } : {}),
    });
    const session: FakeSession = { opts, queue, viewerId: undefined, playing: undefined };
    queue.onEvent((e) => {
      if (e.type === 'ready') this.#pump(session);
    });
    this.#sessions.set(opts.sessionId, session);
    this.calls.push({ op: 'createSession', sessionId: opts.sessionId, opts });
  }

  sayText(sessionId: string, chunk: TextChunk): Promise<QueueAnswer> {
    return attempt(() => this.#session(sessionId).queue.addText(chunk));
  }

  sayAudio(sessionId: string, clip: AudioClip): Promise<SayAudioAnswer> {
    return attempt((): SayAudioAnswer => {
      const s = this.#session(sessionId);
      const sniffed = sniffAudio(clip.audio, clip.declaredDurationSec);
      if (!sniffed.ok) return { kind: 'invalid_audio', reason: sniffed.reason };
      const answer = s.queue.addAudio(clip.turnId, { durationMs: sniffed.durationSec * 1000 });
      return answer === 'queued'
        ? { kind: 'queued', decodedDurationSec: sniffed.durationSec }
        : { kind: answer };
    });
  }

  interrupt(sessionId: string): Promise<void> {
    return attempt(() => this.#interrupt(this.#session(sessionId)));
  }

  #interrupt(s: FakeSession): void {
    const sessionId = s.opts.sessionId;
    const playing = s.playing;
    if (playing) {
      this.#clock.clearTimeout(playing.timer);
      s.playing = undefined;
    }
    const cleared = s.queue.interrupt();
    this.calls.push({ op: 'interrupt', sessionId, cleared });
    if (playing) this.#emit({ type: 'speakingEnd', sessionId, turnId: playing.turnId, interrupted: true });
  }

  connectViewer(sessionId: string, offer: ViewerOffer): Promise<ViewerAnswer> {
    return attempt(() => this.#connectViewer(this.#session(sessionId), offer));
  }

  #connectViewer(s: FakeSession, offer: ViewerOffer): ViewerAnswer {
    const sessionId = s.opts.sessionId;
    const sdp = offer.offerSdp;
    const problem = offerProblem(sdp);
    if (problem) throw new EngineError(problem.code, problem.message);
    const video = hasMedia(sdp, 'video');
    if (s.viewerId) {
      this.#emit({ type: 'viewerDisconnected', sessionId, viewerId: s.viewerId });
    }
    s.viewerId = offer.viewerId;
    this.calls.push({ op: 'connectViewer', sessionId, viewerId: offer.viewerId });
    this.#emit({ type: 'viewerConnected', sessionId, viewerId: offer.viewerId });
    const answerSdp = [
      'v=0',
      `o=- ${Date.now()} 2 IN IP4 127.0.0.1`,
      's=-',
      't=0 0',
      `a=fingerprint:sha-256 ${randomUUID()}`,
      ...(video ? ['m=video 9 UDP/TLS/RTP/SAVPF 96', 'a=sendonly', 'a=rtpmap:96 VP8/90000'] : []),
      '',
    ].join('\r\n');
    return { answerSdp };
  }

  addIceCandidates(sessionId: string, viewerId: string, sdpFragment: string): Promise<void> {
    return attempt(() => {
      this.#viewer(sessionId, viewerId);
      this.calls.push({ op: 'addIceCandidates', sessionId, viewerId, sdpFragment });
    });
  }

  disconnectViewer(sessionId: string, viewerId: string): Promise<void> {
    return attempt(() => {
      this.#viewer(sessionId, viewerId).viewerId = undefined;
      this.calls.push({ op: 'disconnectViewer', sessionId, viewerId });
      this.#emit({ type: 'viewerDisconnected', sessionId, viewerId });
    });
  }

  closeSession(sessionId: string, reason: string): Promise<void> {
    const s = this.#sessions.get(sessionId);
    if (!s) return Promise.resolve();
    if (s.playing) this.#clock.clearTimeout(s.playing.timer);
    s.queue.close();
    this.#sessions.delete(sessionId);
    this.calls.push({ op: 'closeSession', sessionId, reason });
    return Promise.resolve();
  }

  onEvent(listener: (event: EngineEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** What stats() reports as per-process media counters (tests set it). */
  media: EngineMediaStats[] = [];

  stats(): EngineStats {
    return { kind: 'fake', processes: 0, sessions: this.#sessions.size, media: this.media };
  }

  close(): Promise<void> {
    for (const id of [...this.#sessions.keys()]) void this.closeSession(id, 'engine_closed');
    this.#closed = true;
    return Promise.resolve();
  }

  /** Test hook: the session's media fails, as when its engine process dies. */
  failSession(sessionId: string, message = 'engine process exited'): void {
    const s = this.#sessions.get(sessionId);
    if (!s) return;
    if (s.playing) this.#clock.clearTimeout(s.playing.timer);
    s.queue.close();
    this.#sessions.delete(sessionId);
    this.#emit({ type: 'sessionFailed', sessionId, message });
  }

  /** Test hook: ids of sessions the fake still holds. */
  sessionIds(): string[] {
    return [...this.#sessions.keys()];
  }

  /** Test hook: the turn playing in a session, if any. */
  playingTurn(sessionId: string): string | undefined {
    return this.#sessions.get(sessionId)?.playing?.turnId;
  }

  #pump(s: FakeSession): void {
    if (s.playing) return;
    const turn = s.queue.startHead();
    if (!turn) return;
    const sessionId = s.opts.sessionId;
    const durationMs =
      turn.kind === 'audio'
        ? (turn.audio?.durationMs ?? 0)
        : (turn.chunks.join('').length * this.#msPerCharacter) / s.opts.voiceSpeed;
    const timer = this.#clock.setTimeout(() => {
      if (s.playing?.turnId !== turn.turnId) return;
      s.playing = undefined;
      this.#emit({ type: 'speakingEnd', sessionId, turnId: turn.turnId, interrupted: false });
      s.queue.finishPlaying(turn.turnId);
      this.#pump(s);
    }, durationMs);
    s.playing = { turnId: turn.turnId, timer };
    this.#emit({ type: 'speakingStart', sessionId, turnId: turn.turnId });
  }

  #session(sessionId: string): FakeSession {
    this.#assertOpen();
    const s = this.#sessions.get(sessionId);
    if (!s) throw new EngineError('unknown_session', `No engine session ${sessionId}`);
    return s;
  }

  #viewer(sessionId: string, viewerId: string): FakeSession {
    const s = this.#session(sessionId);
    if (s.viewerId !== viewerId) throw new EngineError('unknown_viewer', 'No such viewer');
    return s;
  }

  #assertOpen(): void {
    if (this.#closed) throw new EngineError('engine_unavailable', 'The engine is closed');
  }

  #emit(e: EngineEvent): void {
    this.events.push(e);
    for (const l of [...this.#listeners]) {
      try {
        l(e);
      } catch {
        // a listener's failure is the listener's problem
      }
    }
  }
}

/** Runs `fn` now; its result or throw becomes a settled promise (so callers see rejections only). */
function attempt<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}
