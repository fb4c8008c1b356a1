/**
 * An in-memory EngineHost for control-plane tests: the engine process itself (process/
 * engine-process.ts) with null media (testing/null-media.ts), speech whose length follows the text
 * (testing/timed-speech.ts), no renderer, and an injected clock that ticks its sessions every
 * 10 ms while any exists. So session creation, the queue, player, interrupt and viewer replacement
 * are the engine's own; only libwebrtc, the renderer and the voices are absent. Speech plays
 * without a viewer. Never the default engine of a running server.
 */
import type { AvatarInfo, Clock, VoiceInfo } from '@mouthpiece/protocol';
import { RenderKind } from '../avatar/manifest.js';
import { performanceClock } from '../clock/media-scheduler.js';
import { EngineProcess } from '../process/engine-process.js';
import type {
  AudioClip,
  AudioTurnStart,
  AudioTurnWriteAnswer,
  EngineCatalog,
  EngineEvent,
  EngineHost,
  EngineSessionOptions,
  EngineMediaStats,
  EngineStats,
  QueueAnswer,
  SayAudioAnswer,
  TextChunk,
  ViewerAnswer,
  ViewerOffer,
} from '../contract/types.js';
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
  clock?: Clock;
  avatars?: readonly AvatarInfo[];
  voices?: readonly VoiceInfo[];
  /** Playback time per character at speed 1 (default 60 ms). */
  msPerCharacter?: number;
  autoFinalizeMs?: number;
  /**
   * The avatar kinds a viewer without video may draw itself (MOUTHPIECE_CLIENT_RENDER; default all):
   * as in an engine process, a session of another kind sends such a viewer audio and a notice.
   */
  clientRenderKinds?: readonly RenderKind[];
}

/** One line per thing the fake was asked or did, for assertions. */
export type FakeEngineCall =
  | { op: 'createSession'; sessionId: string; opts: EngineSessionOptions }
  | { op: 'closeSession'; sessionId: string; reason: string }
  | { op: 'interrupt'; sessionId: string; cleared: string[] }
  | { op: 'connectViewer'; sessionId: string; viewerId: string }
  | { op: 'disconnectViewer'; sessionId: string; viewerId: string }
  | { op: 'addIceCandidates'; sessionId: string; viewerId: string; sdpFragment: string };

/** Timers on the event loop that never keep the test process alive. */
const systemClock: Clock = {
  now: () => performanceClock.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export class FakeEngineHost implements EngineHost {
  readonly #catalog: EngineCatalog;
  readonly #engine: EngineProcess;
  /** Each session's viewer peers (null media), by session id. */
  readonly #peers = new Map<string, NullPeer[]>();
  readonly #listeners = new Set<(e: EngineEvent) => void>();
  readonly calls: FakeEngineCall[] = [];
  readonly events: EngineEvent[] = [];
  #closed = false;

  constructor(opts: FakeEngineHostOptions = {}) {
    const clock = opts.clock ?? systemClock;
    const voices = [...(opts.voices ?? FAKE_VOICES)];
    const avatars = [...(opts.avatars ?? FAKE_AVATARS)];
    this.#catalog = { avatars, voices, defaultVoiceId: voices[0]?.id ?? 'en-us-female' };
    const msPerCharacter = opts.msPerCharacter ?? 60;
    this.#engine = new EngineProcess({
      settings: {
        videoWidth: 512,
        videoHeight: 512,
        fps: 25,
        readyTimeoutMs: 0,
        noChannelStartMs: 0,
        clientRenderKinds: [...(opts.clientRenderKinds ?? Object.values(RenderKind))],
      },
      avatars: avatars.map((a) => ({ id: a.id, render: a.render ?? 'vector' })),
      media: ({ sessionId }) => {
        const media = nullMedia();
        this.#peers.set(sessionId, media.peers);
        return media;
      },
      speech: {
        hasVoice: (id) => voices.some((v) => v.id === id),
        triesUnlistedVoices: false,
        source: ({ speed }) => timedSpeech({ msPerCharacter, speed }),
      },
      clock,
      emit: (e) => this.#emit(e),
      log: () => undefined,
      session: {
        waitForViewer: false,
        queue: {
          clock,
          ...(opts.autoFinalizeMs !== undefined ? { autoFinalizeMs: opts.autoFinalizeMs } : {}),
        },
      },
      tickOnlyWithSessions: true,
    });
    this.#engine.start();
  }

  catalog(): EngineCatalog {
    return this.#catalog;
  }

  async createSession(opts: EngineSessionOptions): Promise<void> {
    await this.#engine.createSession(opts);
    this.calls.push({ op: 'createSession', sessionId: opts.sessionId, opts });
  }

  sayText(sessionId: string, chunk: TextChunk): Promise<QueueAnswer> {
    return this.#engine.sayText(sessionId, chunk);
  }

  sayAudio(sessionId: string, clip: AudioClip): Promise<SayAudioAnswer> {
    return this.#engine.sayAudio(sessionId, clip);
  }

  openAudioTurn(sessionId: string, turn: AudioTurnStart): Promise<QueueAnswer> {
    return this.#engine.openAudioTurn(sessionId, turn);
  }

  writeAudioTurn(sessionId: string, turnId: string, pcm: Uint8Array): Promise<AudioTurnWriteAnswer> {
    return this.#engine.writeAudioTurn(sessionId, turnId, pcm);
  }

  endAudioTurn(sessionId: string, turnId: string): Promise<void> {
    return this.#engine.endAudioTurn(sessionId, turnId);
  }

  async interrupt(sessionId: string): Promise<void> {
    const cleared = await this.#engine.interruptSession(sessionId);
    this.calls.push({ op: 'interrupt', sessionId, cleared });
  }

  async connectViewer(sessionId: string, offer: ViewerOffer): Promise<ViewerAnswer> {
    const answer = await this.#engine.connectViewer(sessionId, offer);
    this.calls.push({ op: 'connectViewer', sessionId, viewerId: offer.viewerId });
    return answer;
  }

  async addIceCandidates(sessionId: string, viewerId: string, sdpFragment: string): Promise<void> {
    await this.#engine.addIceCandidates(sessionId, viewerId, sdpFragment);
    this.calls.push({ op: 'addIceCandidates', sessionId, viewerId, sdpFragment });
  }

  async disconnectViewer(sessionId: string, viewerId: string): Promise<void> {
    await this.#engine.disconnectViewer(sessionId, viewerId);
    this.calls.push({ op: 'disconnectViewer', sessionId, viewerId });
  }

  async closeSession(sessionId: string, reason: string): Promise<void> {
    if (!this.#engine.find(sessionId)) return;
    await this.#engine.closeSession(sessionId, reason);
    this.#peers.delete(sessionId);
    this.calls.push({ op: 'closeSession', sessionId, reason });
  }

  onEvent(listener: (event: EngineEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** What stats() reports as per-process media counters (tests set it). */
  media: EngineMediaStats[] = [];

  stats(): EngineStats {
    return { kind: 'fake', processes: 0, sessions: this.#engine.sessionIds().length, media: this.media };
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    for (const id of this.#engine.sessionIds())
      this.calls.push({ op: 'closeSession', sessionId: id, reason: 'engine_closed' });
    this.#engine.close('engine_closed');
    this.#peers.clear();
    return Promise.resolve();
  }

  /** Test hook: the session's media fails, as when its engine process dies. */
  failSession(sessionId: string, message = 'engine process exited'): void {
    this.#engine.failSession(sessionId, message);
    this.#peers.delete(sessionId);
  }

  /** Test hook: ids of sessions the fake still holds. */
  sessionIds(): string[] {
    return this.#engine.sessionIds();
  }

  /** Test hook: the turn playing in a session, if any. */
  playingTurn(sessionId: string): string | undefined {
    return this.#engine.find(sessionId)?.playingTurn;
  }

  /** Test hook: the messages a viewer's events channel was sent (words, speakingStart, …). */
  viewerMessages(sessionId: string, viewerId: string): readonly unknown[] {
    return this.#peers.get(sessionId)?.find((p) => p.viewerId === viewerId)?.sent ?? [];
  }

  /** The binary messages (animation frames) a viewer without video was sent, in order. */
  viewerFrames(sessionId: string, viewerId: string): readonly Uint8Array[] {
    return this.#peers.get(sessionId)?.find((p) => p.viewerId === viewerId)?.binary ?? [];
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
