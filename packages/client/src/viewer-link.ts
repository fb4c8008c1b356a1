/**
 * The page's link to the session's media: the connection state (DISCONNECTED → CONNECTING →
 * CONNECTED, FAILED, CLOSED), the current WHEP transport, and reconnecting. A lost connection (ICE
 * `disconnected`/`failed`, or no video for 1.5 s) is closed whole and the state goes back to
 * CONNECTING while the Reconnector opens new transports (each offer bounded, each connection
 * bounded) until one connects, the server says the session is gone, or the session must have
 * timed out. It reports through its own typed emitter (ViewerLinkEvents); renderers see only its
 * MediaLink side (media-link.ts). A closed link opens again with connect(): a session started anew
 * after ERROR; a transport of an earlier opening that arrives late is closed, never used.
 */
import {
  ConnectionState,
  RTC_CONNECTION_TIMEOUT_MS,
  TypedEmitter,
  type EventCallbacks,
  type ServerMessage,
} from '@mouthpiece/protocol';
import type { MouthpieceError } from './errors.js';
import type { Logger } from './logger.js';
import type { MediaLink, MediaLinkEvents } from './media-link.js';
import { browserTimers, connectWaitMs, Reconnector, type Timers } from './reconnector.js';
import { CONNECTION_TRANSITIONS, StateMachine } from './states.js';
import { WhepTransport, type WhepTransportOptions } from './whep-transport.js';

/** What a link reports, by event name (a closed map); `opened` and `animation` are its MediaLink side. */
export interface ViewerLinkEvents extends MediaLinkEvents {
  connectionChange: { state: ConnectionState };
  /** A server message on the current connection's events channel. */
  message: ServerMessage;
  /** The current connection's first frame was seen (decoded, or drawn with client rendering). */
  videoReady: { width: number; height: number };
  /** Speech heard in the received audio (the fallback without the events channel). */
  audioSpeaking: { speaking: boolean };
  /** The connection was lost; the link is reconnecting. */
  lost: Record<string, never>;
  /** A reconnect attempt starts (counted from 1 since the loss). */
  reconnecting: { attempt: number };
  /** The server answered 404/410 while reconnecting. */
  gone: { error: MouthpieceError };
  /** The deadline passed without a connection: the session must have timed out. */
  gaveUp: Record<string, never>;
  /** The first connection was not made within 30 s. */
  timedOut: { message: string };
}

/** What a link asks of its session (questions, not reports). */
export interface ViewerLinkDeps {
  /** The options of every new transport (the video element is read when the first frame comes). */
  transportOptions(): WhepTransportOptions;
  /** Whether a lost connection is worth reconnecting now (the session is READY). */
  mayReconnect(): boolean;
  /** When the session must have timed out on the server (Timers.now). */
  deadline(): number;
  /**
   * The link reconnects (true: a loss) or has connected (false): the session probes the path to the
   * server meanwhile (session-lifetime.ts), and a probe answered after failures nudges it (`nudge`).
   */
  reconnecting?(on: boolean): void;
  log: Logger;
  timers?: Timers;
}

export class ViewerLink implements MediaLink {
  readonly #deps: ViewerLinkDeps;
  readonly #events: TypedEmitter<ViewerLinkEvents>;
  readonly #state: StateMachine<ConnectionState>;
  readonly #reconnector: Reconnector;
  #transport: WhepTransport | undefined;
  #connectTimer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped by every close(): a transport opened before it is closed when it arrives. */
  #epoch = 0;
  /** The close of a transport that opened after the link was closed. */
  #lateClose: Promise<void> = Promise.resolve();
  /** An answer said the server takes trickled candidates: later offers go before gathering ends. */
  #trickle = false;
  /** This link's offers are numbered `<page>.<n>` (WhepTransportOptions.order). */
  readonly #page = Math.random().toString(36).slice(2, 12);
  #offers = 0;
  /** The first connection: when its offer was answered, and how long ICE then took (connectWaitMs). */
  #firstAnsweredAt: number | undefined;
  #firstConnectMs: number | undefined;
  /** Reconnect attempts since the loss whose ICE did not connect in time. */
  #waitsFailed = 0;

  constructor(deps: ViewerLinkDeps) {
    this.#deps = deps;
    this.#events = new TypedEmitter<ViewerLinkEvents>((err, event) =>
      deps.log.error(`a link "${String(event)}" listener threw`, err),
    );
    this.#state = new StateMachine<ConnectionState>({
      name: 'connection',
      initial: ConnectionState.DISCONNECTED,
      table: CONNECTION_TRANSITIONS,
      log: deps.log,
      onChange: (state) => this.#events.emit('connectionChange', { state }),
    });
    this.#reconnector = new Reconnector({
      attempt: (_n, signal) => this.#attempt(signal),
      deadline: () => deps.deadline(),
      attempting: (attempt) => this.#events.emit('reconnecting', { attempt }),
      gone: (error) => this.#events.emit('gone', { error }),
      gaveUp: () => this.#events.emit('gaveUp', {}),
      ...(deps.timers ? { timers: deps.timers } : {}),
    });
  }

  on<K extends keyof ViewerLinkEvents>(event: K, listener: EventCallbacks<ViewerLinkEvents>[K]): () => void {
    return this.#events.on(event, listener);
  }

  get state(): ConnectionState {
    return this.#state.state;
  }

  /** The current transport's stream (for a video element attached later). */
  get stream(): MediaStream | undefined {
    return this.#transport?.stream;
  }

  /**
   * The first connection of a session's start (from DISCONNECTED, or CLOSED/FAILED when it starts
   * again after ERROR): CONNECTING, and `timedOut` if it is not connected within 30 s.
   */
  async connect(): Promise<void> {
    this.#state.transition(ConnectionState.CONNECTING, 'session start');
    clearTimeout(this.#connectTimer);
    this.#connectTimer = setTimeout(
      () => this.#events.emit('timedOut', { message: 'WebRTC connection timed out (30 s)' }),
      RTC_CONNECTION_TIMEOUT_MS,
    );
    try {
      if (await this.#open()) this.#firstAnsweredAt ??= this.#now();
    } catch (err) {
      clearTimeout(this.#connectTimer);
      this.#state.transition(ConnectionState.FAILED, 'the first offer failed');
      throw err;
    }
  }

  drawn(size: { width: number; height: number }): void {
    this.#transport?.drawn(size);
  }

  stats(): Promise<RTCStatsReport> | undefined {
    return this.#transport?.stats();
  }

  /** Closes the connection and opens a new one with the current options (video instead of client rendering). */
  reopen(): void {
    this.#lost('reopened for video');
  }

  /**
   * Try to reconnect now, if reconnecting (the network is probably back); `stale`: it was down
   * until now, so an offer still waiting for its answer is abandoned and sent again (reconnector.ts).
   */
  nudge(o: { stale?: boolean } = {}): void {
    this.#reconnector.nudge(o);
  }

  /**
   * Stops reconnecting, closes the transport (see WhepTransport.close) and moves to `to` (CLOSED,
   * or FAILED when the SDK gave up; a link already CLOSED stays so); resolves once the viewer's
   * DELETE is answered.
   */
  close(
    o: {
      sessionGone?: boolean;
      keepalive?: boolean;
      to?: (typeof ConnectionState)['FAILED' | 'CLOSED'];
    } = {},
  ): Promise<void> {
    this.#epoch++;
    this.#reconnector.stop();
    clearTimeout(this.#connectTimer);
    const closed = this.#transport?.close(o) ?? Promise.resolve();
    this.#transport = undefined;
    if (this.#state.state !== ConnectionState.CLOSED)
      this.#state.transition(o.to ?? ConnectionState.CLOSED, 'closed by the session');
    return closed;
  }

  /** Resolves once a transport that opened after `close()` is closed too (its DELETE answered). */
  settled(): Promise<void> {
    return this.#lateClose;
  }

  /** Opens a new WHEP transport and listens to it; the previous one, if any, is already closed. */
  async #open(signal?: AbortSignal): Promise<WhepTransport | undefined> {
    const epoch = this.#epoch;
    const o = this.#deps.transportOptions();
    const transport = await WhepTransport.open({
      ...o,
      trickle: o.trickle === true || this.#trickle,
      order: `${this.#page}.${++this.#offers}`,
      ...(signal ? { signal } : {}),
    });
    this.#trickle ||= transport.trickle;
    if (epoch !== this.#epoch) {
      // the session was torn down (or given up) while this one was opening
      this.#lateClose = transport.close();
      return undefined;
    }
    this.#transport = transport;
    transport.on('message', (m) => this.#events.emit('message', m));
    transport.on('peerState', ({ state }) => this.#onPeerState(state));
    transport.on('stall', () => {
      this.#deps.log.warn('video stalled; reconnecting');
      this.#lost('stalled');
    });
    transport.on('firstFrame', (size) => this.#events.emit('videoReady', size));
    transport.on('audioSpeaking', (e) => this.#events.emit('audioSpeaking', e));
    transport.on('animation', (e) => this.#events.emit('animation', e));
    this.#events.emit('opened', { stream: transport.stream });
    return transport;
  }

  #onPeerState(state: RTCPeerConnectionState): void {
    switch (state) {
      case 'connected':
        clearTimeout(this.#connectTimer);
        this.#state.transition(ConnectionState.CONNECTED, 'ICE connected');
        if (this.#firstConnectMs === undefined && this.#firstAnsweredAt !== undefined)
          this.#firstConnectMs = this.#now() - this.#firstAnsweredAt;
        this.#waitsFailed = 0;
        this.#deps.reconnecting?.(false);
        break;
      case 'disconnected':
      case 'failed':
        this.#lost(`ICE ${state}`);
        break;
      case 'new':
      case 'connecting':
      case 'closed':
        break;
    }
  }

  /** The connection was lost: close it, show CONNECTING, and reconnect while the session can live. */
  #lost(why: string): void {
    if (this.#reconnector.active) return; // this loss is the one being reconnected
    if (!this.#deps.mayReconnect()) {
      this.#deps.log.debug('connection lost while the session is not READY; not reconnecting', { why });
      return;
    }
    this.#deps.log.warn('connection lost; reconnecting', { why });
    clearTimeout(this.#connectTimer);
    void this.#transport?.close();
    this.#transport = undefined;
    this.#state.transition(ConnectionState.CONNECTING, why);
    this.#deps.reconnecting?.(true);
    this.#events.emit('lost', {});
    this.#reconnector.start();
  }

  /**
   * One reconnect attempt: a new transport, connected within a bound (else closed and retried).
   * `signal` abandons its offer while unanswered; an answered offer goes on to connect.
   */
  async #attempt(signal: AbortSignal): Promise<void> {
    void this.#transport?.close();
    this.#transport = undefined;
    const transport = await this.#open(signal);
    if (!transport) return;
    try {
      await transport.whenConnected(connectWaitMs(this.#firstConnectMs, this.#waitsFailed));
    } catch (err) {
      this.#waitsFailed++;
      void transport.close();
      if (this.#transport === transport) this.#transport = undefined;
      throw err;
    }
  }

  #now(): number {
    return (this.#deps.timers ?? browserTimers).now();
  }
}
