/**
 * What an engine process does, with its I/O injected: its sessions, the one media scheduler that
 * ticks them all, and their creation. The real process (engine-main.ts) gives it libwebrtc media,
 * the process's speech and renderers; the test host (testing/fake-engine-host.ts) gives it null
 * media, timed speech, no renderer and a manual clock; so both answer the control plane alike.
 *
 * The media tick never waits for a session's creation (docs/design.md §2): the avatar packs are
 * handed in by the pool (never read per session), and a session's renderer is opened off the tick
 * (render/avatar-renderer.ts openAvatarRenderer: the pack's files read asynchronously, decoded in
 * slices or on a worker thread). The session joins the ticking sessions only once it is ready;
 * one closed while it starts never joins.
 */
import { checkSessionChoices, type Clock } from '@mouthpiece/protocol';
import type { AvatarPack } from '../avatar/catalog.js';
import type { RenderKind } from '../avatar/manifest.js';
import { TICK_MS } from '../clock/media-clock.js';
import { MediaScheduler } from '../clock/media-scheduler.js';
import type { EngineLogLine, EngineMethods, EngineProcessOptions } from '../host/protocol.js';
import {
  EngineError,
  type AudioClip,
  type AudioTurnStart,
  type EngineEvent,
  type EngineMediaStats,
  type EngineSessionOptions,
  type TextChunk,
  type ViewerOffer,
} from '../contract/types.js';
import type { Renderer } from '../render/renderer.js';
import type { PeerFactory } from '../contract/peer.js';
import { EngineSession } from '../session/engine-session.js';
import type { AudioSink, VideoSink } from '../contract/media.js';
import type { SpeechSource } from '../session/speech-source.js';
import type { SpeechQueueOptions } from '../session/speech-queue.js';

/** An avatar a session may choose: its kind, and its pack when the process renders it. */
export interface ProcessAvatar {
  id: string;
  render: RenderKind;
  pack?: AvatarPack;
}

/** The packs as the pool hands them over, as the process looks them up. */
export function processAvatars(packs: readonly AvatarPack[]): ProcessAvatar[] {
  return packs.map((pack) => ({ id: pack.manifest.id, render: pack.manifest.render, pack }));
}

/** One session's media: where its audio and frames go, and who answers its viewers. */
export interface SessionMedia {
  audioSink: AudioSink;
  peerFactory: PeerFactory;
  /** Absent: the session renders nothing (its viewers draw the avatar, or a test). */
  videoSink?: VideoSink | undefined;
}

/** The process's voices, and a session's speech from them. */
export interface ProcessSpeech {
  hasVoice(voiceId: string): boolean;
  /** Whether an unlisted ElevenLabs-shaped voice id is tried. */
  readonly triesUnlistedVoices: boolean;
  source(o: { sessionId: string; voiceId: string; speed: number }): SpeechSource;
}

export type ProcessSettings = Pick<
  EngineProcessOptions,
  'videoWidth' | 'videoHeight' | 'fps' | 'readyTimeoutMs' | 'noChannelStartMs' | 'clientRenderKinds'
>;

export interface EngineProcessDeps {
  settings: ProcessSettings;
  avatars: readonly ProcessAvatar[];
  /** A session's media (libwebrtc in an engine process, null media in tests). */
  media(o: { sessionId: string; width: number; height: number }): SessionMedia;
  speech: ProcessSpeech;
  /**
   * A session's renderer, made ready off the media tick; rejects naming what could not be loaded.
   * Absent: sessions render nothing.
   */
  openRenderer?(
    avatar: ProcessAvatar,
    o: { width: number; height: number; background: string | undefined; fps: number },
  ): Promise<Renderer>;
  /** The media scheduler's clock (performance.now and timers in a process, manual in tests). */
  clock: Clock;
  emit(event: EngineEvent): void;
  log(level: EngineLogLine['level'], fields: Record<string, unknown>, msg: string): void;
  /** What the test host changes of every session: speech without a viewer, the queue's clock. */
  session?: { waitForViewer?: boolean; queue?: SpeechQueueOptions };
  /**
   * Tick only while a session exists (the test host, so a manual clock holds no timer when idle);
   * default: from start() to close(), so the health ping's tick count always moves.
   */
  tickOnlyWithSessions?: boolean;
  /** The process id the health ping reports. */
  pid?: number;
}

/** The EngineHost methods an engine process answers, and its ping. */
export class EngineProcess implements EngineMethods {
  readonly #d: EngineProcessDeps;
  #avatars: Map<string, ProcessAvatar>;
  readonly #sessions = new Map<string, EngineSession>();
  /** Sessions whose renderer is being opened: closed before ready, they never start. */
  readonly #starting = new Map<string, { cancelled: boolean }>();
  /** Frame counters of sessions already closed, so the process totals are cumulative. */
  readonly #retired = { sent: 0, held: 0, skipped: 0 };
  readonly #scheduler: MediaScheduler;
  #running = false;

  constructor(deps: EngineProcessDeps) {
    this.#d = deps;
    this.#avatars = new Map(deps.avatars.map((a) => [a.id, a]));
    this.#scheduler = new MediaScheduler((tick, ticksLeft) => this.#tick(tick, ticksLeft), {
      clock: deps.clock,
    });
  }

  /** Starts the media clock. */
  start(): void {
    this.#running = true;
    if (!this.#d.tickOnlyWithSessions) this.#scheduler.start();
  }

  /** The avatars sessions may choose from now on (the pool re-read its catalog). */
  setAvatars(avatars: readonly ProcessAvatar[]): void {
    this.#avatars = new Map(avatars.map((a) => [a.id, a]));
  }

  /** Ids of the sessions that tick (a starting session is not one yet). */
  sessionIds(): string[] {
    return [...this.#sessions.keys()];
  }

  /** The live session with this id, if any (test hooks read its state). */
  find(sessionId: string): EngineSession | undefined {
    return this.#sessions.get(sessionId);
  }

  ping(): EngineMediaStats {
    let framesSent = this.#retired.sent;
    let framesHeld = this.#retired.held;
    let framesSkipped = this.#retired.skipped;
    for (const s of this.#sessions.values()) {
      framesSent += s.framesSent;
      framesHeld += s.framesHeld;
      framesSkipped += s.framesSkipped;
    }
    return {
      pid: this.#d.pid ?? 0,
      sessions: this.#sessions.size,
      framesSent,
      framesHeld,
      framesSkipped,
      ...this.#scheduler.sample(),
    };
  }

  async createSession(o: EngineSessionOptions): Promise<void> {
    if (!this.#running) throw new EngineError('engine_unavailable', 'The engine is closed');
    const check = checkSessionChoices(o, {
      findAvatar: (id) => this.#avatars.get(id),
      hasVoice: (id) => this.#d.speech.hasVoice(id),
      triesUnlistedVoices: this.#d.speech.triesUnlistedVoices,
    });
    if (!check.ok) throw new EngineError('invalid_request', check.message);
    if (this.#sessions.has(o.sessionId) || this.#starting.has(o.sessionId))
      throw new EngineError('invalid_request', `Engine session ${o.sessionId} exists already`);
    const avatar = this.#avatars.get(o.avatarId)!; // the check found it
    const { videoWidth: width, videoHeight: height, fps, clientRenderKinds } = this.#d.settings;
    const renderer = await this.#open(o, avatar);
    const media = this.#d.media({ sessionId: o.sessionId, width, height });
    this.#attach(
      new EngineSession({
        sessionId: o.sessionId,
        fps,
        readyTimeoutMs: this.#d.settings.readyTimeoutMs,
        noChannelStartMs: this.#d.settings.noChannelStartMs,
        emit: (e) => this.#d.emit(e),
        speech: this.#d.speech.source({ sessionId: o.sessionId, voiceId: o.voiceId, speed: o.voiceSpeed }),
        audioSink: media.audioSink,
        peerFactory: media.peerFactory,
        clientRender: clientRenderKinds.includes(avatar.render),
        avatarKind: avatar.render,
        videoSink: media.videoSink,
        renderer,
        ...(this.#d.session?.waitForViewer !== undefined
          ? { waitForViewer: this.#d.session.waitForViewer }
          : {}),
        ...(this.#d.session?.queue ? { queue: this.#d.session.queue } : {}),
      }),
    );
  }

  sayText(id: string, chunk: TextChunk): ReturnType<EngineMethods['sayText']> {
    return attempt(() => this.#session(id).sayText(chunk));
  }

  sayAudio(id: string, clip: AudioClip): ReturnType<EngineMethods['sayAudio']> {
    return attempt(() => this.#session(id).sayAudio({ ...clip, audio: new Uint8Array(clip.audio) }));
  }

  openAudioTurn(id: string, start: AudioTurnStart): ReturnType<EngineMethods['openAudioTurn']> {
    return attempt(() => this.#session(id).audioStreams.open(start));
  }

  writeAudioTurn(id: string, turnId: string, pcm: Uint8Array): ReturnType<EngineMethods['writeAudioTurn']> {
    return attempt(() => this.#session(id).audioStreams.write(turnId, new Uint8Array(pcm)));
  }

  endAudioTurn(id: string, turnId: string): Promise<void> {
    return attempt(() => this.#session(id).audioStreams.end(turnId));
  }

  /** Interrupts the session; answers the turns it cleared. */
  interruptSession(id: string): Promise<string[]> {
    return attempt(() => this.#session(id).interrupt());
  }

  interrupt(id: string): Promise<void> {
    return this.interruptSession(id).then(() => undefined);
  }

  connectViewer(id: string, offer: ViewerOffer): ReturnType<EngineMethods['connectViewer']> {
    return attempt(async () => ({
      answerSdp: await this.#session(id).connectViewer(offer.viewerId, offer.offerSdp, offer.iceServers),
    }));
  }

  addIceCandidates(id: string, viewerId: string, sdpFragment: string): Promise<void> {
    return attempt(() => this.#session(id).addIceCandidates(viewerId, sdpFragment));
  }

  disconnectViewer(id: string, viewerId: string): Promise<void> {
    return attempt(() => this.#session(id).disconnectViewer(viewerId));
  }

  closeSession(id: string, reason: string): Promise<void> {
    const start = this.#starting.get(id);
    if (start) start.cancelled = true;
    const s = this.#sessions.get(id);
    if (s) this.#detach(s);
    s?.close(reason);
    return Promise.resolve();
  }

  /** The session's media failed (its tick threw, or its process is said to have died). */
  failSession(id: string, err: unknown): void {
    const s = this.#sessions.get(id);
    if (!s) return;
    const message = err instanceof Error ? err.message : String(err);
    this.#d.log('error', { sessionId: id, err: message }, 'session media failed');
    this.#detach(s);
    try {
      s.close('engine_failed');
    } catch {
      // already broken
    }
    this.#d.emit({ type: 'sessionFailed', sessionId: id, message });
  }

  /** Closes every session and stops the clock. */
  close(reason = 'engine_closed'): void {
    this.#running = false;
    for (const start of this.#starting.values()) start.cancelled = true;
    for (const s of [...this.#sessions.values()]) {
      this.#detach(s);
      s.close(reason);
    }
    this.#scheduler.stop();
  }

  /** The session's renderer, once its pack is ready; undefined when the process renders nothing. */
  async #open(o: EngineSessionOptions, avatar: ProcessAvatar): Promise<Renderer | undefined> {
    if (!this.#d.openRenderer) return undefined;
    const start = { cancelled: false };
    this.#starting.set(o.sessionId, start);
    let renderer: Renderer;
    try {
      const { videoWidth: width, videoHeight: height, fps } = this.#d.settings;
      renderer = await this.#d.openRenderer(avatar, { width, height, background: o.background, fps });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.#d.log(
        'error',
        { sessionId: o.sessionId, avatarId: avatar.id, err: message },
        'session start failed',
      );
      throw new EngineError('internal', message, { cause: err });
    } finally {
      this.#starting.delete(o.sessionId);
    }
    if (start.cancelled || !this.#running) {
      renderer.close();
      throw new EngineError('unknown_session', `Engine session ${o.sessionId} was closed while it started`);
    }
    return renderer;
  }

  #attach(s: EngineSession): void {
    this.#sessions.set(s.id, s);
    // the first tick one tick after the first session (a manual clock's test counts from there)
    if (this.#d.tickOnlyWithSessions) this.#scheduler.start(TICK_MS);
  }

  #detach(s: EngineSession): void {
    if (!this.#sessions.delete(s.id)) return;
    this.#retired.sent += s.framesSent;
    this.#retired.held += s.framesHeld;
    this.#retired.skipped += s.framesSkipped;
    if (this.#d.tickOnlyWithSessions && this.#sessions.size === 0) this.#scheduler.stop();
  }

  #tick(tick: number, ticksLeft: number): void {
    for (const s of [...this.#sessions.values()]) {
      try {
        s.tick(tick, ticksLeft);
      } catch (err) {
        this.failSession(s.id, err);
      }
    }
  }

  #session(id: string): EngineSession {
    if (!this.#running) throw new EngineError('engine_unavailable', 'The engine is closed');
    const s = this.#sessions.get(id);
    if (!s) throw new EngineError('unknown_session', `No engine session ${id}`);
    return s;
  }
}

/** Runs `fn` now; its result or throw becomes a settled promise (so callers see rejections only). */
function attempt<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}
