/**
 * AvatarSession: show and drive a Mouthpiece avatar in a page. Backend-created pattern:
 * `initSession({sessionId, token})`, or `initSession({sessionId, viewerToken})` for a view-only
 * page while the backend speaks (session-access.ts); frontend-only pattern (demos only — never ship a credential
 * to browsers): `createSession()` with `credential` in the config.
 */
import {
  ClientErrorCode,
  ConnectionState,
  SessionState,
  TypedEmitter,
  type InitClientResponse,
  type ServerMessage,
} from '@mouthpiece/protocol';
import { ApiClient } from './api-client.js';
import { asMouthpieceError, MouthpieceError } from './errors.js';
import { endWhenReachable, GAVE_UP_ERROR, idleDeadline } from './give-up.js';
import { createLogger, type Logger } from './logger.js';
import { RenderSwitch } from './render/render-switch.js';
import { retryConfig } from './retry.js';
import { dispatchServerMessage, REPLACED_ERROR } from './server-messages.js';
import { sessionKey, type SessionAccess, type SessionKey } from './session-access.js';
import { createSessionKey, needCredential, SessionCalls } from './session-calls.js';
import { checkConfig, transportOptions } from './session-config.js';
import { SessionLifetime } from './session-lifetime.js';
import type { AvatarSessionCallbacks, AvatarSessionConfig, AvatarSessionEvents } from './session-types.js';
import { SpeakingTracker } from './speaking-tracker.js';
import { SESSION_TRANSITIONS, StateMachine } from './states.js';
import { PageVideo } from './video-element.js';
import { ViewerLink } from './viewer-link.js';

export type {
  AvatarSessionCallbacks,
  AvatarSessionConfig,
  AvatarSessionEvents,
  RenderFallbackReason,
  RenderMode,
} from './session-types.js';

export class AvatarSession {
  readonly #log: Logger;
  readonly #api: ApiClient;
  readonly #config: AvatarSessionConfig;
  readonly #events: TypedEmitter<AvatarSessionEvents>;
  readonly #session: StateMachine<SessionState>;
  readonly #link: ViewerLink;
  #key: SessionKey | undefined;
  /** say-text, say-audio, interrupt, end with the session's token (refused for a viewer token). */
  #calls: SessionCalls | undefined;
  #init: InitClientResponse | undefined;
  readonly #video = new PageVideo(() => this.#events.emit('autoplayBlocked', {}));
  #lifetime: SessionLifetime | undefined;
  readonly #speaking: SpeakingTracker;
  /** Client rendering while the page draws the avatar, else video. */
  readonly #render: RenderSwitch;
  #containerId: string | undefined;
  /** Bumped by every start and teardown: a start a teardown overtook stops (see #check). */
  #run = 0;
  #starting: Promise<void> | undefined;

  constructor(config: AvatarSessionConfig) {
    checkConfig(config);
    this.#config = config;
    this.#log = createLogger(config.logLevel ?? 'info');
    this.#api = new ApiClient(config.baseUrl, retryConfig(config), this.#log);
    this.#events = new TypedEmitter<AvatarSessionEvents>((err, event) =>
      this.#log.error(`a "${String(event)}" listener threw`, err),
    );
    this.#session = new StateMachine<SessionState>({
      name: 'session',
      initial: SessionState.IDLE,
      table: SESSION_TRANSITIONS,
      log: this.#log,
      onChange: (s) => this.#events.emit('stateChange', s),
    });
    this.#speaking = new SpeakingTracker({
      start: (e) => this.#events.emit('speakingStart', e),
      end: (e) => this.#events.emit('speakingEnd', e),
    });
    this.#link = new ViewerLink({
      transportOptions: () =>
        transportOptions(this.#init!, this.#config, this.#render.mode, () => this.#video.element, this.#log),
      mayReconnect: () => this.#session.state === SessionState.READY,
      deadline: () => idleDeadline(this.#lifetime?.aliveAt, this.#init?.idleTimeoutMs),
      reconnecting: (on) => this.#lifetime?.reconnecting(on), // keep-alives probe the path meanwhile
      log: this.#log,
    });
    this.#render = new RenderSwitch({
      fallback: (e) => this.#events.emit('renderFallback', e),
      toVideo: (attached) => {
        if (attached && this.#containerId) this.attachVideo(this.#containerId);
        this.#link.reopen();
      },
      log: this.#log,
    });
    this.#listen(this.#link);
  }

  on<K extends keyof AvatarSessionEvents>(event: K, listener: AvatarSessionCallbacks[K]): () => void {
    return this.#events.on(event, listener);
  }

  off<K extends keyof AvatarSessionEvents>(event: K, listener: AvatarSessionCallbacks[K]): void {
    this.#events.off(event, listener);
  }

  getSessionId(): string | null {
    return this.#key?.sessionId ?? null;
  }

  getSessionState(): SessionState {
    return this.#session.state;
  }

  getConnectionState(): ConnectionState {
    return this.#link.state;
  }

  /** True when the page opened the session with a viewer token: it watches, the backend speaks. */
  get viewOnly(): boolean {
    return this.#key?.viewOnly ?? false;
  }

  /** Frontend-only pattern: create → init-client → WHEP → keep-alive → video. */
  async createSession(o: {
    avatarId: string;
    voiceId?: string;
    voiceSpeed?: number;
    videoContainerId?: string;
  }): Promise<string> {
    const credential = needCredential(this.#config);
    let sessionId = '';
    await this.#startWith(async () => {
      const key = await createSessionKey(this.#api, credential, o);
      sessionId = key.sessionId;
      return key;
    }, o.videoContainerId);
    return sessionId;
  }

  /**
   * Backend-created pattern: the same without create. With `{ sessionId, viewerToken }` the page
   * only watches: sayText, sayAudio, interrupt and endSession reject with ViewOnlyError, sending
   * nothing, and leaving the page does not end the session.
   */
  async initSession(s: SessionAccess, o: { videoContainerId?: string } = {}): Promise<void> {
    const key = sessionKey(s);
    await this.#startWith(() => Promise.resolve(key), o.videoContainerId);
  }

  /**
   * Puts the avatar into the element with this id: its video (autoplay, playsinline, 100 %), or
   * with `render: 'client'` the canvas it is drawn on (100 %, letterboxed like the video).
   */
  attachVideo(containerId: string): HTMLVideoElement | HTMLCanvasElement {
    const container = document.getElementById(containerId);
    if (!container)
      throw new MouthpieceError(ClientErrorCode.INVALID_CONFIGURATION, `No element with id "${containerId}"`);
    this.#containerId = containerId;
    const canvas = this.#render.attach(container);
    if (canvas) return canvas;
    return this.#video.attach(container, this.#link.stream);
  }

  async sayText(text: string, turnId?: string, isFinal = true): Promise<string> {
    return this.#ready('sayText').sayText(text, turnId, isFinal);
  }

  async sayAudio(audioFile: Blob, turnId: string, duration: number): Promise<void> {
    await this.#ready('sayAudio').sayAudio(audioFile, turnId, duration);
  }

  async interrupt(): Promise<void> {
    await this.#ready('interrupt').interrupt();
    this.#speaking.interruptAll(); // the server stopped them; its speakingEnd may be lost in an outage
  }

  /** Ends the session (not on a view-only page: ViewOnlyError, nothing stops; see `disconnect()`). */
  async endSession(): Promise<void> {
    this.#calls?.require('endSession');
    const calls = this.#calls;
    const viewerClosed = this.#teardown();
    this.#over('endSession()');
    if (calls) {
      // the viewer's DELETE first: sent after /end, it would answer 410 (a console error)
      await viewerClosed;
      try {
        await calls.end();
      } catch (err) {
        if (!(err instanceof MouthpieceError && err.code === ClientErrorCode.SESSION_NOT_FOUND)) throw err;
      }
    }
  }

  /**
   * Stops showing the session here — keep-alives, connection, drawing — without ending it on the
   * server, with a token or a viewer token: a new AvatarSession (here or in another page) shows it
   * again; `endSession()` ends it. This object's state is ENDED; a start under way rejects
   * (INVALID_STATE). Resolves once the page's WHEP viewer is DELETEd, the late one of a start too.
   */
  async disconnect(): Promise<void> {
    const viewerClosed = this.#teardown();
    this.#over('disconnect()');
    await Promise.all([viewerClosed, this.#starting?.catch(() => undefined)]);
    await this.#link.settled();
  }

  /** @deprecated The former name of `disconnect()`. */
  leave(): Promise<void> {
    return this.disconnect();
  }

  /** After a user gesture, when the browser blocked autoplay with sound. */
  unmute(): void {
    this.#render.unmute();
    this.#video.unmute();
  }

  /** What the link reports, and what the session decides of it. */
  #listen(link: ViewerLink): void {
    link.on('connectionChange', ({ state }) => this.#events.emit('connectionChange', state));
    link.on('opened', ({ stream }) => this.#video.play(stream));
    link.on('message', (m) => this.#onMessage(m));
    link.on('videoReady', (size) => this.#events.emit('videoReady', size));
    // speech heard in the audio, without the events channel: turnId ''
    link.on('audioSpeaking', ({ speaking }) =>
      speaking ? this.#speaking.start('') : this.#speaking.end('', false),
    );
    link.on('lost', () => {
      this.#speaking.end('', false); // speech heard in the audio: none arrives now
      // other open turns stay open: the server plays on; the next viewer's hello says what it plays
    });
    link.on('reconnecting', (e) => this.#events.emit('reconnecting', e));
    link.on('gone', ({ error }) => this.#ended(error.message, error));
    link.on('gaveUp', () => this.#giveUp(GAVE_UP_ERROR));
    link.on('timedOut', ({ message }) =>
      this.#giveUp({ code: ClientErrorCode.RTC_CONNECTION_FAILED, message }),
    );
  }

  /** A start may begin from IDLE, or from ERROR (a page retries on the same object); returns its run. */
  #begin(): number {
    const { state } = this.#session;
    if (state !== SessionState.IDLE && state !== SessionState.ERROR)
      throw new MouthpieceError(ClientErrorCode.INVALID_STATE, `Cannot start a session in state ${state}`);
    this.#session.transition(SessionState.CREATING, 'start');
    return ++this.#run;
  }

  /** One start: ERROR (and the error thrown) when it fails. */
  async #startWith(key: () => Promise<SessionKey>, videoContainerId: string | undefined): Promise<void> {
    const run = this.#begin();
    try {
      await (this.#starting = key().then((k) => this.#start(k, run, videoContainerId)));
    } catch (err) {
      throw this.#fail(err, run);
    }
  }

  /** Throws when a teardown (disconnect) came while this start was awaiting. */
  #check(run: number): void {
    if (run !== this.#run)
      throw new MouthpieceError(ClientErrorCode.INVALID_STATE, 'disconnect() came while the session started');
  }

  async #start(key: SessionKey, run: number, videoContainerId?: string): Promise<void> {
    const { sessionId, bearer: token } = key;
    this.#key = key;
    this.#calls = new SessionCalls(this.#api, key);
    this.#init = await this.#api.post<InitClientResponse>(`/v1/avatar-session/${sessionId}/init-client`, {
      auth: { bearer: token },
      json: {},
      kind: 'safe',
    });
    this.#check(run);
    if (this.#config.render === 'client')
      await this.#render.open({
        baseUrl: this.#config.baseUrl,
        sessionId,
        token,
        link: this.#link,
        autoplayBlocked: () => this.#events.emit('autoplayBlocked', {}),
      });
    this.#check(run);
    await this.#link.connect();
    this.#check(run);
    const lifetime = new SessionLifetime({
      api: this.#api,
      sessionId,
      token,
      idleTimeoutMs: this.#init.idleTimeoutMs,
      endOnPageHide: !key.viewOnly && this.#config.endOnPageHide !== false, // a viewer never ends it
      log: this.#log,
    });
    lifetime.on('ended', ({ error }) => this.#ended(error.message, error));
    lifetime.on('error', (e) => this.#events.emit('error', e));
    lifetime.on('alive', ({ recovered }) => this.#link.nudge({ stale: recovered })); // reachable again
    lifetime.on('online', () => this.#link.nudge());
    lifetime.on('pageHide', () => {
      this.#speaking.interruptAll();
      void this.#link.close({ keepalive: true });
    });
    this.#lifetime = lifetime;
    this.#session.transition(SessionState.READY, 'connected');
    if (videoContainerId) this.attachVideo(videoContainerId);
  }

  /**
   * The SDK gives up on the session (it must have timed out on the server, or its first connection
   * never came): stop here, no more keep-alives, and end it once the server can be reached.
   */
  #giveUp(error: AvatarSessionEvents['error']): void {
    this.#log.error('gave up on the session', error.message);
    const key = this.#key;
    void this.#teardown({ sessionGone: true, to: ConnectionState.FAILED }); // no keep-alives from here
    const run = this.#run;
    this.#session.transition(SessionState.ERROR, 'gave up');
    this.#events.emit('error', error);
    // a view-only page ends nothing: the backend owns the session
    if (key && !key.viewOnly && this.#config.endOnPageHide !== false)
      endWhenReachable(this.#api, key.sessionId, key.bearer, (err) => {
        if (run !== this.#run) return; // the page started again (or ended) meanwhile: this is no longer its state
        this.#session.transition(SessionState.ENDED, 'the given-up session ended');
        void this.#link.close();
        if (err) this.#events.emit('error', err.toJSON());
      });
  }

  #onMessage(m: ServerMessage): void {
    if (m.type === 'hello') this.#render.hello(m); // the animation stream's timing, in every mode
    dispatchServerMessage(
      m,
      { events: this.#events, speaking: this.#speaking, speakingDetection: this.#config.speakingDetection },
      {
        ended: (reason) => this.#ended(`The session ended (${reason})`),
        replaced: () => this.#replaced(),
        // (the server will not send the animation stream: the switch reconnects once, asking for video)
        notice: (code, message) => {
          this.#render.notice(code, message);
        },
      },
    );
  }

  /** A newer viewer (another tab) took the session's video: stop here, and do not fight back. */
  #replaced(): void {
    this.#log.warn('another page took over this session; this page stops');
    void this.#teardown({ sessionGone: true }); // the server closed this viewer already
    this.#session.transition(SessionState.ENDED, 'replaced');
    this.#events.emit('error', REPLACED_ERROR);
  }

  /** The server says the session is over (404/410, sessionEnded): ENDED, with the error. */
  #ended(message: string, err?: MouthpieceError): void {
    void this.#teardown({ sessionGone: true });
    this.#session.transition(SessionState.ENDED, 'ended on the server');
    this.#events.emit('error', err?.toJSON() ?? { code: ClientErrorCode.SESSION_NOT_FOUND, message });
  }

  /** The page ends its part (endSession, disconnect): ENDED, unless it never started or has ended (logged). */
  #over(call: string): void {
    const { state } = this.#session;
    if (state === SessionState.IDLE || state === SessionState.ENDED)
      this.#log.debug(`${call} in ${state}: the state stays`);
    else this.#session.transition(SessionState.ENDED, call);
  }

  /** Stops everything of the session here; resolves once the viewer's DELETE is answered. */
  #teardown(
    o: { sessionGone?: boolean; to?: (typeof ConnectionState)['FAILED' | 'CLOSED'] } = {},
  ): Promise<void> {
    this.#run++;
    this.#speaking.interruptAll();
    this.#lifetime?.stop();
    this.#lifetime = undefined;
    this.#render.close();
    return this.#link.close(o);
  }

  /** The session's calls, if this page may make `call` (else ViewOnlyError) and it is READY. */
  #ready(call: string): SessionCalls {
    this.#calls?.require(call);
    const { state } = this.#session;
    if (state === SessionState.READY && this.#calls) return this.#calls;
    throw new MouthpieceError(ClientErrorCode.INVALID_STATE, `The session is ${state}, not READY`);
  }

  /**
   * A start failed: ERROR, its parts stopped. A start a teardown overtook (disconnect, endSession)
   * leaves the state that teardown set.
   */
  #fail(err: unknown, run: number): MouthpieceError {
    const e = asMouthpieceError(err);
    if (run !== this.#run) return e; // the teardown that overtook it set the state
    void this.#teardown({ sessionGone: e.code === ClientErrorCode.SESSION_NOT_FOUND });
    this.#session.transition(SessionState.ERROR, `start failed (${e.code})`);
    return e;
  }
}
