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
  type CreateSessionResponse,
  type InitClientResponse,
  type SayTextResponse,
  type ServerMessage,
} from '@mouthpiece/protocol';
import { ApiClient } from './api-client.js';
import { MouthpieceError } from './errors.js';
import { createLogger, type Logger } from './logger.js';
import { retryConfig } from './retry.js';
import { CONNECTION_TRANSITIONS, SESSION_TRANSITIONS, StateMachine } from './states.js';
import { iceServersFor } from './turn.js';
import { WhepTransport } from './whep-transport.js';
import { SessionLifetime } from './session-lifetime.js';
import { Reconnector } from './reconnector.js';
import { endWhenReachable, GAVE_UP_ERROR, idleDeadline, RECONNECT_CONNECT_WAIT_MS } from './outage.js';
import { SpeakingTracker } from './speaking-tracker.js';
import { playWithFallback, styleVideo } from './video-element.js';
import {
  audioForm,
  createBody,
  dispatchServerMessage,
  REPLACED_ERROR,
  type AvatarSessionCallbacks,
  type AvatarSessionConfig,
  type AvatarSessionEvents,
} from './session-types.js';

export type { AvatarSessionCallbacks, AvatarSessionConfig, AvatarSessionEvents } from './session-types.js';

export class AvatarSession {
  readonly #log: Logger;
  readonly #api: ApiClient;
  readonly #config: AvatarSessionConfig;
  readonly #events: TypedEmitter<AvatarSessionEvents>;
  readonly #session: StateMachine<SessionState>;
  readonly #connection: StateMachine<ConnectionState>;
  #sessionId: string | null = null;
  #token: string | null = null;
  /** The current WHEP connection; replaced as a whole on reconnect. */
  #transport: WhepTransport | undefined;
  #init: InitClientResponse | undefined;
  #video: HTMLVideoElement | undefined;
  #lifetime: SessionLifetime | undefined;
  #connectTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #speaking: SpeakingTracker;
  readonly #reconnector: Reconnector;

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
    this.#reconnector = new Reconnector({
      attempt: () => this.#attempt(),
      deadline: () => idleDeadline(this.#lifetime?.aliveAt, this.#init?.idleTimeoutMs),
      attempting: (attempt) => this.#events.emit('reconnecting', { attempt }),
      gone: (err) => this.#ended(err.message, err),
      gaveUp: () => this.#gaveUp(),
    });
  }

  on<K extends keyof AvatarSessionEvents>(event: K, listener: AvatarSessionCallbacks[K]): () => void {
    return this.#events.on(event, listener);
  }

  off<K extends keyof AvatarSessionEvents>(event: K, listener: AvatarSessionCallbacks[K]): void {
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
    if (this.#transport) video.srcObject = this.#transport.stream;
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
    this.#speaking.interruptAll(); // the server stopped them; its speakingEnd may be lost in an outage
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
    const lifetime = new SessionLifetime({
      api: this.#api,
      sessionId,
      token,
      idleTimeoutMs: this.#init.idleTimeoutMs,
      endOnPageHide: this.#config.endOnPageHide !== false,
      log: this.#log,
    });
    lifetime.on('ended', ({ error }) => this.#ended(error.message, error));
    lifetime.on('error', (e) => this.#events.emit('error', e));
    lifetime.on('alive', () => this.#reconnector.nudge()); // the server is reachable again
    lifetime.on('online', () => this.#reconnector.nudge());
    lifetime.on('pageHide', () => {
      this.#reconnector.stop();
      this.#speaking.interruptAll();
      void this.#transport?.close({ keepalive: true });
    });
    this.#lifetime = lifetime;
    this.#session.transition(SessionState.READY);
    if (videoContainerId) this.attachVideo(videoContainerId);
  }

  /** The first connection: CONNECTING, and FAILED if it is not connected within 30 s. */
  async #connect(): Promise<void> {
    this.#connection.transition(ConnectionState.CONNECTING);
    clearTimeout(this.#connectTimer);
    this.#connectTimer = setTimeout(
      () => this.#connectionFailed('WebRTC connection timed out (30 s)'),
      RTC_CONNECTION_TIMEOUT_MS,
    );
    try {
      await this.#open();
    } catch (err) {
      clearTimeout(this.#connectTimer);
      this.#connection.transition(ConnectionState.FAILED);
      throw err;
    }
  }

  /** Opens a new WHEP transport and listens to it; the previous one, if any, is already closed. */
  async #open(): Promise<WhepTransport | undefined> {
    const init = this.#init!;
    const transport = await WhepTransport.open({
      whepUrl: init.whepUrl,
      iceServers: iceServersFor(init.turn, init.iceServers),
      iceTransportPolicy: this.#config.iceTransportPolicy ?? 'all',
      speakingDetection: this.#config.speakingDetection ?? 'auto',
      video: () => this.#video,
      log: this.#log,
    });
    if (this.#connection.state === ConnectionState.CLOSED || this.#connection.state === ConnectionState.FAILED) {
      void transport.close(); // the session was torn down (or given up) while this one was opening
      return undefined;
    }
    this.#transport = transport;
    if (this.#video) this.#video.srcObject = transport.stream;
    transport.on('message', (m) => this.#onMessage(m));
    transport.on('peerState', ({ state }) => this.#onPeerState(state));
    transport.on('stall', () => {
      this.#log.warn('video stalled; reconnecting');
      this.#lost();
    });
    transport.on('firstFrame', (size) => this.#events.emit('videoReady', size));
    // speech heard in the audio, without the events channel: turnId ''
    transport.on('audioSpeaking', ({ speaking }) =>
      speaking ? this.#speaking.start('') : this.#speaking.end('', false),
    );
    return transport;
  }

  #onPeerState(state: RTCPeerConnectionState): void {
    switch (state) {
      case 'connected':
        clearTimeout(this.#connectTimer);
        if (this.#connection.can(ConnectionState.CONNECTED))
          this.#connection.transition(ConnectionState.CONNECTED);
        break;
      case 'disconnected':
      case 'failed':
        this.#lost();
        break;
      case 'new':
      case 'connecting':
      case 'closed':
        break;
    }
  }

  /**
   * The connection was lost (ICE, or no video for 1.5 s): close it, show CONNECTING, and reconnect
   * while the session can live. Open turns stay open: the server plays on, and the next viewer's
   * `hello` says what it plays (no invented interrupt).
   */
  #lost(): void {
    if (this.#session.state !== SessionState.READY || this.#reconnector.active) return;
    this.#log.warn('connection lost; reconnecting');
    clearTimeout(this.#connectTimer);
    void this.#lifetime?.probe(); // is the session alive, and the server reachable?
    this.#speaking.end('', false); // speech heard in the audio: none arrives now
    void this.#transport?.close();
    this.#transport = undefined;
    this.#connection.transition(ConnectionState.CONNECTING);
    this.#reconnector.start();
  }

  /** One reconnect attempt: a new transport, connected within a bound (else closed and retried). */
  async #attempt(): Promise<void> {
    void this.#transport?.close();
    this.#transport = undefined;
    const transport = await this.#open();
    if (!transport) return;
    try {
      await transport.whenConnected(RECONNECT_CONNECT_WAIT_MS);
    } catch (err) {
      void transport.close();
      if (this.#transport === transport) this.#transport = undefined;
      throw err;
    }
  }

  /** The session must have timed out on the server: stop here, no keep-alives, end it when reachable. */
  #gaveUp(): void {
    this.#log.error('gave up reconnecting: the session must have timed out');
    const id = this.#sessionId;
    const token = this.#token;
    void this.#teardown({ sessionGone: true, connection: ConnectionState.FAILED }); // no keep-alives from here
    if (this.#session.can(SessionState.ERROR)) this.#session.transition(SessionState.ERROR);
    this.#events.emit('error', GAVE_UP_ERROR);
    if (id && token && this.#config.endOnPageHide !== false)
      endWhenReachable(this.#api, id, token, (err) => {
        if (this.#session.state !== SessionState.ERROR) return; // a new session began meanwhile
        this.#session.transition(SessionState.ENDED);
        this.#connection.transition(ConnectionState.CLOSED);
        if (err) this.#events.emit('error', err.toJSON());
      });
  }

  #connectionFailed(message: string): void {
    if (this.#connection.can(ConnectionState.FAILED)) this.#connection.transition(ConnectionState.FAILED);
    if (this.#session.can(SessionState.ERROR)) this.#session.transition(SessionState.ERROR);
    this.#events.emit('error', { code: ClientErrorCode.RTC_CONNECTION_FAILED, message });
  }

  #onMessage(m: ServerMessage): void {
    // with speakingDetection 'audio', speaking comes from the audio; only the end is read here
    if (this.#config.speakingDetection === 'audio' && m.type !== 'sessionEnded') return;
    if (m.type === 'hello') {
      const resumed = this.#speaking.reconcile(m.speaking);
      if (resumed !== undefined) this.#events.emit('speakingResumed', { turnId: resumed });
    }
    dispatchServerMessage(m, this.#events, this.#speaking, {
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
  #teardown(
    o: { sessionGone?: boolean; connection?: (typeof ConnectionState)['FAILED' | 'CLOSED'] } = {},
  ): Promise<void> {
    this.#reconnector.stop();
    this.#speaking.interruptAll();
    this.#lifetime?.stop();
    this.#lifetime = undefined;
    clearTimeout(this.#connectTimer);
    const viewerClosed = this.#transport?.close(o) ?? Promise.resolve();
    this.#transport = undefined;
    const to = o.connection ?? ConnectionState.CLOSED;
    if (this.#connection.can(to)) this.#connection.transition(to);
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
