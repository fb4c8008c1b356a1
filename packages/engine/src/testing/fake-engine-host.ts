/**
 * An in-memory EngineHost for control-plane tests: the real engine session (session/
 * engine-session.ts) with null media (testing/null-media.ts) and speech whose length follows the
 * text (testing/timed-speech.ts), ticked every 10 ms on an injected clock. So the queue, player,
 * interrupt and viewer replacement are the engine's own; only libwebrtc, the renderer and the
 * voices are absent. Speech plays without a viewer. Never the default engine of a running server.
 */
import type { AvatarInfo, VoiceInfo } from '@mouthpiece/protocol';
import { TICK_MS } from '../clock/media-clock.js';
import { EngineSession } from '../session/engine-session.js';
import type { QueueClock } from '../session/speech-queue.js';
import {
  type AudioClip,
  type AudioTurnStart,
  type AudioTurnWriteAnswer,
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
  EngineError,
} from '../host/types.js';
import { nullMedia, type NullPeer } from './null-media.js';
import { timedSpeech } from './timed-speech.js';

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
  /**
   * The avatar kinds a viewer without video may draw itself (MOUTHPIECE_CLIENT_RENDER; default all):
   * as in an engine process, a session of another kind sends such a viewer audio and a notice.
   */
  clientRenderKinds?: readonly string[];
}

interface FakeSession {
  session: EngineSession;
  peers: NullPeer[];
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
  readonly #clientRenderKinds: readonly string[] | undefined;
  readonly #sessions = new Map<string, FakeSession>();
  readonly #listeners = new Set<(e: EngineEvent) => void>();
  readonly calls: FakeEngineCall[] = [];
  readonly events: EngineEvent[] = [];
  #closed = false;
  #ticker: unknown;
  #tickIndex = 0;

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
    this.#clientRenderKinds = opts.clientRenderKinds;
  }

  catalog(): EngineCatalog {
    return this.#catalog;
  }

  createSession(opts: EngineSessionOptions): Promise<void> {
    return attempt(() => {
      this.#assertOpen();
      const media = nullMedia();
      const kind = this.#catalog.avatars.find((a) => a.id === opts.avatarId)?.render ?? 'vector';
      const session = new EngineSession({
        sessionId: opts.sessionId,
        fps: 25,
        readyTimeoutMs: 0,
        noChannelStartMs: 0,
        emit: (e) => this.#emit(e),
        speech: timedSpeech({ msPerCharacter: this.#msPerCharacter, speed: opts.voiceSpeed }),
        audioSink: media.audioSink,
        peerFactory: media.peerFactory,
        clientRender: this.#clientRenderKinds?.includes(kind) ?? true,
        avatarKind: kind,
        waitForViewer: false,
        queue: {
          clock: this.#clock,
          ...(this.#autoFinalizeMs !== undefined ? { autoFinalizeMs: this.#autoFinalizeMs } : {}),
        },
      });
      this.#sessions.set(opts.sessionId, { session, peers: media.peers });
      this.calls.push({ op: 'createSession', sessionId: opts.sessionId, opts });
      this.#startTicking();
    });
  }

  sayText(sessionId: string, chunk: TextChunk): Promise<QueueAnswer> {
    return attempt(() => this.#session(sessionId).sayText(chunk));
  }

  async sayAudio(sessionId: string, clip: AudioClip): Promise<SayAudioAnswer> {
    return this.#session(sessionId).sayAudio(clip);
  }

  openAudioTurn(sessionId: string, turn: AudioTurnStart): Promise<QueueAnswer> {
    return attempt(() => this.#session(sessionId).audioStreams.open(turn));
  }

  writeAudioTurn(sessionId: string, turnId: string, pcm: Uint8Array): Promise<AudioTurnWriteAnswer> {
    return attempt(() => this.#session(sessionId).audioStreams.write(turnId, pcm));
  }

  endAudioTurn(sessionId: string, turnId: string): Promise<void> {
    return attempt(() => this.#session(sessionId).audioStreams.end(turnId));
  }

  interrupt(sessionId: string): Promise<void> {
    return attempt(() => {
      const cleared = this.#session(sessionId).interrupt();
      this.calls.push({ op: 'interrupt', sessionId, cleared });
    });
  }

  async connectViewer(sessionId: string, offer: ViewerOffer): Promise<ViewerAnswer> {
    const session = this.#session(sessionId);
    const answerSdp = await session.connectViewer(offer.viewerId, offer.offerSdp, offer.iceServers);
    this.calls.push({ op: 'connectViewer', sessionId, viewerId: offer.viewerId });
    return { answerSdp };
  }

  async addIceCandidates(sessionId: string, viewerId: string, sdpFragment: string): Promise<void> {
    await this.#session(sessionId).addIceCandidates(viewerId, sdpFragment);
    this.calls.push({ op: 'addIceCandidates', sessionId, viewerId, sdpFragment });
  }

  disconnectViewer(sessionId: string, viewerId: string): Promise<void> {
    return attempt(() => {
      this.#session(sessionId).disconnectViewer(viewerId);
      this.calls.push({ op: 'disconnectViewer', sessionId, viewerId });
    });
  }

  closeSession(sessionId: string, reason: string): Promise<void> {
    const s = this.#sessions.get(sessionId);
    if (!s) return Promise.resolve();
    this.#release(sessionId, reason);
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
    if (!this.#sessions.has(sessionId)) return;
    this.#release(sessionId, 'engine_failed');
    this.#emit({ type: 'sessionFailed', sessionId, message });
  }

  /** Test hook: ids of sessions the fake still holds. */
  sessionIds(): string[] {
    return [...this.#sessions.keys()];
  }

  /** Test hook: the turn playing in a session, if any. */
  playingTurn(sessionId: string): string | undefined {
    return this.#sessions.get(sessionId)?.session.playingTurn;
  }

  /** Test hook: the messages a viewer's events channel was sent (words, speakingStart, …). */
  viewerMessages(sessionId: string, viewerId: string): readonly unknown[] {
    return this.#sessions.get(sessionId)?.peers.find((p) => p.viewerId === viewerId)?.sent ?? [];
  }

  /** The binary messages (animation frames) a viewer without video was sent, in order. */
  viewerFrames(sessionId: string, viewerId: string): readonly Uint8Array[] {
    return this.#sessions.get(sessionId)?.peers.find((p) => p.viewerId === viewerId)?.binary ?? [];
  }

  #release(sessionId: string, reason: string): void {
    this.#sessions.get(sessionId)?.session.close(reason);
    this.#sessions.delete(sessionId);
    if (this.#sessions.size === 0) {
      this.#clock.clearTimeout(this.#ticker);
      this.#ticker = undefined;
    }
  }

  /** The media clock: every session ticks each 10 ms while any exists. */
  #startTicking(): void {
    if (this.#ticker !== undefined) return;
    const tick = (): void => {
      this.#ticker = this.#clock.setTimeout(tick, TICK_MS);
      const index = this.#tickIndex++;
      for (const [id, s] of [...this.#sessions]) {
        try {
          s.session.tick(index);
        } catch (err) {
          this.failSession(id, err instanceof Error ? err.message : String(err));
        }
      }
    };
    this.#ticker = this.#clock.setTimeout(tick, TICK_MS);
  }

  #session(sessionId: string): EngineSession {
    this.#assertOpen();
    const s = this.#sessions.get(sessionId);
    if (!s) throw new EngineError('unknown_session', `No engine session ${sessionId}`);
    return s.session;
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
