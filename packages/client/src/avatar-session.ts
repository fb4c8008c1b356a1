/**
 * AvatarSession: show and drive a Mouthpiece avatar in a page. Backend-created pattern:
 * `initSession({sessionId, token})`; frontend-only pattern (demos only — never ship a credential
 * to browsers): `createSession()` with `credential` in the config.
 */
import {
  ClientErrorCode,
  ConnectionState,
  RTC_CONNECTION_TIMEOUT_MS,
  SessionState,
  TypedEmitter,
  parseServerMessage,
  type CreateSessionResponse,
  type InitClientResponse,
  type SayTextResponse,
} from '@mouthpiece/protocol';
import { ApiClient } from './api-client.js';
import { MouthpieceError } from './errors.js';
import { createLogger, type Logger } from './logger.js';
import { retryConfig } from './retry.js';
import { CONNECTION_TRANSITIONS, SESSION_TRANSITIONS, StateMachine } from './states.js';
import { iceServersFor } from './turn.js';
import { closeWhep, connectWhep, whepFailure, type WhepConnection } from './whep-client.js';
import { SpeechFallback } from './speech-detector.js';
import { SessionLifetime } from './session-lifetime.js';
import { MediaWatchdog } from './media-watchdog.js';
import { SpeakingTracker } from './speaking-tracker.js';
import { playWithFallback, styleVideo, watchFirstFrame } from './video-element.js';
import {
  audioForm,
  createBody,
  dispatchServerMessage,
  REPLACED_ERROR,
  type AvatarSessionConfig,
  type AvatarSessionEvents,
} from './session-types.js';

export type { AvatarSessionConfig, AvatarSessionEvents } from './session-types.js';

type EventName = keyof AvatarSessionEvents & string;

export class AvatarSession {
  readonly #log: Logger;
  readonly #api: ApiClient;
  readonly #config: AvatarSessionConfig;
  readonly #events: TypedEmitter<AvatarSessionEvents>;
  readonly #session: StateMachine<SessionState>;
  readonly #connection: StateMachine<ConnectionState>;
  #sessionId: string | null = null;
  #token: string | null = null;
  #whep: WhepConnection | undefined;
  #init: InitClientResponse | undefined;
  #video: HTMLVideoElement | undefined;
  #lifetime: SessionLifetime | undefined;
  #watchdog: MediaWatchdog | undefined;
  #connectTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #speechFallback = new SpeechFallback();
  readonly #speaking: SpeakingTracker;

  constructor(config: AvatarSessionConfig) {
    if (!config || typeof config.baseUrl !== 'string' || !/^https?:\/\//.test(config.baseUrl)) {
      throw new MouthpieceError(
        ClientErrorCode.INVALID_CONFIGURATION,
        'baseUrl is required (an absolute http(s) URL)',
      );
    }
    this.#config = config;
    this.#log = createLogger(config.logLevel ?? 'info');
    this.#api = new ApiClient(config.baseUrl, retryConfig(config), this.#log);
    this.#events = new TypedEmitter<AvatarSessionEvents>((err, event) =>
      this.#log.error(`a "${String(event)}" listener threw`, err),
    );
    this.#session = new StateMachine<SessionState>(SessionState.IDLE, SESSION_TRANSITIONS, (s) =>
      this.#events.emit('stateChange', s),
    );
    this.#connection = new StateMachine<ConnectionState>(
      ConnectionState.DISCONNECTED,
      CONNECTION_TRANSITIONS,
      (s) => this.#events.emit('connectionChange', s),
    );
    this.#speaking = new SpeakingTracker({
      start: (e) => this.#events.emit('speakingStart', e),
      end: (e) => this.#events.emit('speakingEnd', e),
    });
  }

  on<K extends EventName>(event: K, listener: (payload: AvatarSessionEvents[K]) => void): () => void {
    return this.#events.on(event, listener);
  }

  off<K extends EventName>(event: K, listener: (payload: AvatarSessionEvents[K]) => void): void {
    this.#events.off(event, listener);
  }

  getSessionId(): string | null {
    return this.#sessionId;
  }

  getSessionState(): SessionState {
    return this.#session.state;
  }

  getConnectionState(): ConnectionState {
    return this.#connection.state;
  }

  /** Frontend-only pattern: create → init-client → WHEP → keep-alive → video. */
  async createSession(o: {
    avatarId: string;
    voiceId?: string;
    voiceSpeed?: number;
    videoContainerId?: string;
  }): Promise<string> {
    if (!this.#config.credential) {
      throw new MouthpieceError(
        ClientErrorCode.INVALID_CONFIGURATION,
        'createSession needs `credential` in the config (demos only); use initSession in production',
      );
    }
    this.#begin();
    try {
      const created = await this.#api.post<CreateSessionResponse>('/v1/avatar-session', {
        auth: { ks: this.#config.credential },
        json: createBody(o),
        kind: 'unsafe',
      });
      await this.#start(created.sessionId, created.token, o.videoContainerId);
      return created.sessionId;
    } catch (err) {
      throw this.#fail(err);
    }
  }

  /** Backend-created pattern: the same without create. */
  async initSession(
    s: { sessionId: string; token: string },
    o: { videoContainerId?: string } = {},
  ): Promise<void> {
    if (!s?.sessionId || !s?.token)
      throw new MouthpieceError(ClientErrorCode.INVALID_CONFIGURATION, 'sessionId and token are required');
    this.#begin();
    try {
      await this.#start(s.sessionId, s.token, o.videoContainerId);
    } catch (err) {
      throw this.#fail(err);
    }
  }

  /** Puts the avatar's video into the element with this id (autoplay, playsinline, 100 %). */
  attachVideo(containerId: string): HTMLVideoElement {
    const container = document.getElementById(containerId);
    if (!container)
      throw new MouthpieceError(ClientErrorCode.INVALID_CONFIGURATION, `No element with id "${containerId}"`);
    const video = styleVideo(this.#video ?? document.createElement('video'));
    if (this.#whep) video.srcObject = this.#whep.stream;
    container.appendChild(video);
    this.#video = video;
    this.#play();
    return video;
  }

  async sayText(text: string, turnId?: string, isFinal = true): Promise<string> {
    this.#requireReady();
    const r = await this.#api.post<SayTextResponse>(`/v1/avatar-session/${this.#sessionId}/say-text`, {
      auth: { bearer: this.#token! },
      json: { text, isFinal, ...(turnId ? { turnId } : {}) },
      kind: 'unsafe',
    });
    return r.turnId;
  }

  async sayAudio(audioFile: Blob, turnId: string, duration: number): Promise<void> {
    this.#requireReady();
    await this.#api.post(`/v1/avatar-session/${this.#sessionId}/say-audio`, {
      auth: { bearer: this.#token! },
      form: audioForm(audioFile, turnId, duration),
      kind: 'unsafe',
    });
  }

  async interrupt(): Promise<void> {
    this.#requireReady();
    await this.#api.post(`/v1/avatar-session/${this.#sessionId}/interrupt`, {
      auth: { bearer: this.#token! },
      json: {},
      kind: 'safe',
    });
  }

  async endSession(): Promise<void> {
    const id = this.#sessionId;
    const token = this.#token;
    const viewerClosed = this.#teardown();
    if (this.#session.can(SessionState.ENDED)) this.#session.transition(SessionState.ENDED);
    if (id && token) {
      // the viewer's DELETE first: sent after /end, it would answer 410 (a console error)
      await viewerClosed;
      try {
        await this.#api.post(`/v1/avatar-session/${id}/end`, {
          auth: { bearer: token },
          json: {},
          kind: 'safe',
        });
      } catch (err) {
        if (!(err instanceof MouthpieceError && err.code === ClientErrorCode.SESSION_NOT_FOUND)) throw err;
      }
    }
  }

  /** After a user gesture, when the browser blocked autoplay with sound. */
  unmute(): void {
    if (!this.#video) return;
    this.#video.muted = false;
    void this.#video.play().catch(() => undefined);
  }

  #begin(): void {
    if (this.#session.state !== SessionState.IDLE && this.#session.state !== SessionState.ERROR) {
      throw new MouthpieceError(
        ClientErrorCode.INVALID_STATE,
        `Cannot start a session in state ${this.#session.state}`,
      );
    }
    this.#session.transition(SessionState.CREATING);
  }

  async #start(sessionId: string, token: string, videoContainerId?: string): Promise<void> {
    this.#sessionId = sessionId;
    this.#token = token;
    this.#init = await this.#api.post<InitClientResponse>(`/v1/avatar-session/${sessionId}/init-client`, {
      auth: { bearer: token },
      json: {},
      kind: 'safe',
    });
    await this.#connect();
    this.#lifetime = new SessionLifetime({
      api: this.#api,
      sessionId,
      token,
      idleTimeoutMs: this.#init.idleTimeoutMs,
      endOnPageHide: this.#config.endOnPageHide !== false,
      ended: (err) => this.#ended(err.message, err),
      error: (e) => this.#events.emit('error', e),
      pageHide: () => {
        this.#speaking.interruptAll();
        if (this.#whep) void closeWhep(this.#whep, { keepalive: true });
      },
    });
    this.#session.transition(SessionState.READY);
    if (videoContainerId) this.attachVideo(videoContainerId);
  }

  async #connect(): Promise<void> {
    const init = this.#init!;
    this.#connection.transition(ConnectionState.CONNECTING);
    clearTimeout(this.#connectTimer);
    this.#connectTimer = setTimeout(
      () => this.#connectionFailed('WebRTC connection timed out (30 s)'),
      RTC_CONNECTION_TIMEOUT_MS,
    );
    let whep: WhepConnection;
    try {
      whep = await connectWhep(
        init.whepUrl,
        iceServersFor(init.turn, init.iceServers),
        this.#config.iceTransportPolicy ?? 'all',
      );
    } catch (err) {
      clearTimeout(this.#connectTimer);
      this.#connection.transition(ConnectionState.FAILED);
      throw whepFailure(err);
    }
    this.#whep = whep;
    if (this.#video) this.#video.srcObject = whep.stream;
    whep.channel.onmessage = (e: MessageEvent<string>) => {
      if (this.#config.speakingDetection !== 'audio') this.#onMessage(e.data);
      else if (parseServerMessage(e.data)?.type === 'sessionEnded') this.#onMessage(e.data);
    };
    whep.pc.onconnectionstatechange = () => this.#onPeerState(whep);
    this.#watchdog?.stop();
    this.#watchdog = new MediaWatchdog(whep.pc, () => {
      this.#log.warn('video stalled; asking the server whether the session lives');
      void this.#lifetime?.probe();
    });
    this.#watchFirstFrame(whep);
    this.#detectSpeechFallback(whep);
  }

  #onPeerState(whep: WhepConnection): void {
    if (whep !== this.#whep) return;
    switch (whep.pc.connectionState) {
      case 'connected':
        clearTimeout(this.#connectTimer);
        this.#connection.transition(ConnectionState.CONNECTED);
        break;
      case 'disconnected':
      case 'failed':
        this.#speaking.interruptAll(); // nothing more of that speech will arrive
        if (this.#session.state === SessionState.READY) void this.#reconnect();
        break;
      case 'new':
      case 'connecting':
      case 'closed':
        break;
    }
  }

  async #reconnect(): Promise<void> {
    this.#log.warn('connection lost; reconnecting');
    if (this.#whep) void closeWhep(this.#whep);
    this.#whep = undefined;
    this.#speechFallback.stop();
    try {
      await this.#connect();
    } catch (err) {
      if (err instanceof MouthpieceError && err.code === ClientErrorCode.SESSION_NOT_FOUND)
        this.#ended(err.message, err);
      else this.#connectionFailed(err instanceof Error ? err.message : String(err));
    }
  }

  #connectionFailed(message: string): void {
    if (this.#connection.can(ConnectionState.FAILED)) this.#connection.transition(ConnectionState.FAILED);
    if (this.#session.can(SessionState.ERROR)) this.#session.transition(SessionState.ERROR);
    this.#events.emit('error', { code: ClientErrorCode.RTC_CONNECTION_FAILED, message });
  }

  /** Without the events channel, speaking is detected from the received audio (turnId ''). */
  #detectSpeechFallback(whep: WhepConnection): void {
    this.#speechFallback.arm(whep, this.#config.speakingDetection ?? 'auto', () => whep === this.#whep, {
      started: () => this.#log.info('speaking events from the received audio'),
      start: () => this.#speaking.start(''),
      end: () => this.#speaking.end('', false),
    });
  }

  #watchFirstFrame(whep: WhepConnection): void {
    watchFirstFrame(
      whep,
      () => this.#video,
      () => whep === this.#whep,
      (width, height) => {
        const send = (): void => whep.channel.send(JSON.stringify({ type: 'ready' }));
        if (whep.channel.readyState === 'open') send();
        else whep.channel.addEventListener('open', send, { once: true });
        this.#events.emit('videoReady', { width, height });
      },
    );
  }

  #onMessage(raw: string): void {
    dispatchServerMessage(raw, this.#events, this.#speaking, {
      ended: (reason) => this.#ended(`The session ended (${reason})`),
      replaced: () => this.#replaced(),
    });
  }

  /** A newer viewer (another tab) took the session's video: stop here, and do not fight back. */
  #replaced(): void {
    this.#log.warn('another page took over this session; this page stops');
    void this.#teardown({ sessionGone: true }); // the server closed this viewer already
    if (this.#session.can(SessionState.ENDED)) this.#session.transition(SessionState.ENDED);
    this.#events.emit('error', REPLACED_ERROR);
  }

  #ended(message: string, err?: MouthpieceError): void {
    void this.#teardown({ sessionGone: true });
    if (this.#session.can(SessionState.ENDED)) this.#session.transition(SessionState.ENDED);
    this.#events.emit('error', err?.toJSON() ?? { code: ClientErrorCode.SESSION_NOT_FOUND, message });
  }

  /** Stops everything of the session here; resolves once the viewer's DELETE is answered. */
  #teardown(o: { sessionGone?: boolean } = {}): Promise<void> {
    this.#speaking.interruptAll();
    this.#lifetime?.stop();
    this.#lifetime = undefined;
    this.#watchdog?.stop();
    this.#watchdog = undefined;
    this.#speechFallback.stop();
    clearTimeout(this.#connectTimer);
    const viewerClosed = this.#whep ? closeWhep(this.#whep, o) : Promise.resolve();
    this.#whep = undefined;
    if (this.#connection.can(ConnectionState.CLOSED)) this.#connection.transition(ConnectionState.CLOSED);
    return viewerClosed;
  }

  #play(): void {
    if (this.#video) playWithFallback(this.#video, () => this.#events.emit('autoplayBlocked', {}));
  }

  #requireReady(): void {
    if (this.#session.state !== SessionState.READY || !this.#sessionId || !this.#token) {
      throw new MouthpieceError(
        ClientErrorCode.INVALID_STATE,
        `The session is ${this.#session.state}, not READY`,
      );
    }
  }

  #fail(err: unknown): MouthpieceError {
    const e =
      err instanceof MouthpieceError
        ? err
        : new MouthpieceError(
            ClientErrorCode.API_REQUEST_FAILED,
            err instanceof Error ? err.message : String(err),
          );
    void this.#teardown({ sessionGone: e.code === ClientErrorCode.SESSION_NOT_FOUND });
    if (this.#session.can(SessionState.ERROR)) this.#session.transition(SessionState.ERROR);
    return e;
  }
}
