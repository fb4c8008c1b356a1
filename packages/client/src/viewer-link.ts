/**
 * The page's link to the session's media: the connection state (DISCONNECTED → CONNECTING →
 * CONNECTED, FAILED, CLOSED), the current WHEP transport, and reconnecting. A lost connection (ICE
 * `disconnected`/`failed`, or no video for 1.5 s) is closed whole and the state goes back to
 * CONNECTING while the Reconnector opens new transports (each offer bounded, each connection
 * bounded) until one connects, the server says the session is gone, or the session must have
 * timed out. What the transports report goes to the owner (AvatarSession) through `on`.
 */
import {
  ConnectionState,
  RTC_CONNECTION_TIMEOUT_MS,
  type AnimationFrame,
  type ServerMessage,
} from '@mouthpiece/protocol';
import type { MouthpieceError } from './errors.js';
import type { Logger } from './logger.js';
import { RECONNECT_CONNECT_WAIT_MS } from './outage.js';
import { Reconnector, type Timers } from './reconnector.js';
import { CONNECTION_TRANSITIONS, StateMachine } from './states.js';
import { WhepTransport, type WhepTransportOptions } from './whep-transport.js';

export interface ViewerLinkOwner {
  /** The options of every new transport (the video element is read when the first frame comes). */
  transportOptions(): WhepTransportOptions;
  stateChanged(state: ConnectionState): void;
  message(m: ServerMessage): void;
  videoReady(size: { width: number; height: number }): void;
  audioSpeaking(speaking: boolean): void;
  /** A new transport is open (its stream: for an element that plays it). */
  opened(stream: MediaStream): void;
  /** Client rendering: an animation frame arrived (performance.now()). */
  animation(frame: AnimationFrame, arrivalMs: number): void;
  /** Whether a lost connection is worth reconnecting now (the session is READY). */
  mayReconnect(): boolean;
  /** The connection was lost; the link is reconnecting. */
  lost(): void;
  reconnecting(attempt: number): void;
  /** When the session must have timed out on the server (Timers.now). */
  deadline(): number;
  /** The server answered 404/410 while reconnecting. */
  gone(err: MouthpieceError): void;
  /** The deadline passed without a connection. */
  gaveUp(): void;
  /** The first connection was not made within 30 s. */
  timedOut(message: string): void;
  log: Logger;
  timers?: Timers;
}

export class ViewerLink {
  readonly #o: ViewerLinkOwner;
  readonly #state: StateMachine<ConnectionState>;
  readonly #reconnector: Reconnector;
  #transport: WhepTransport | undefined;
  #connectTimer: ReturnType<typeof setTimeout> | undefined;
  /** The close of a transport that opened after the link was closed. */
  #lateClose: Promise<void> = Promise.resolve();

  constructor(o: ViewerLinkOwner) {
    this.#o = o;
    this.#state = new StateMachine<ConnectionState>(
      ConnectionState.DISCONNECTED,
      CONNECTION_TRANSITIONS,
      (s) => o.stateChanged(s),
    );
    this.#reconnector = new Reconnector({
      attempt: () => this.#attempt(),
      deadline: () => o.deadline(),
      attempting: (n) => o.reconnecting(n),
      gone: (err) => o.gone(err),
      gaveUp: () => o.gaveUp(),
      ...(o.timers ? { timers: o.timers } : {}),
    });
  }

  get state(): ConnectionState {
    return this.#state.state;
  }

  /** The current transport's stream (for a video element attached later). */
  get stream(): MediaStream | undefined {
    return this.#transport?.stream;
  }

  /** The first connection: CONNECTING, and FAILED if it is not connected within 30 s. */
  async connect(): Promise<void> {
    this.#state.transition(ConnectionState.CONNECTING);
    clearTimeout(this.#connectTimer);
    this.#connectTimer = setTimeout(
      () => this.#o.timedOut('WebRTC connection timed out (30 s)'),
      RTC_CONNECTION_TIMEOUT_MS,
    );
    try {
      await this.#open();
    } catch (err) {
      clearTimeout(this.#connectTimer);
      this.#state.transition(ConnectionState.FAILED);
      throw err;
    }
  }

  /** Client rendering: the canvas drew the current connection's first frame (sends `ready`). */
  drawn(size: { width: number; height: number }): void {
    this.#transport?.drawn(size);
  }

  /** The current connection's stats; undefined between connections. */
  stats(): Promise<RTCStatsReport> | undefined {
    return this.#transport?.stats();
  }

  /** Closes the connection and opens a new one with the current options (video instead of client rendering). */
  reopen(): void {
    this.#lost();
  }

  /** Try to reconnect now, if reconnecting (the network is probably back). */
  nudge(): void {
    this.#reconnector.nudge();
  }

  /**
   * Stops reconnecting, closes the transport (see WhepTransport.close) and moves to `to` (CLOSED,
   * or FAILED when the SDK gave up); resolves once the viewer's DELETE is answered.
   */
  close(
    o: {
      sessionGone?: boolean;
      keepalive?: boolean;
      to?: (typeof ConnectionState)['FAILED' | 'CLOSED'];
    } = {},
  ): Promise<void> {
    this.#reconnector.stop();
    clearTimeout(this.#connectTimer);
    const closed = this.#transport?.close(o) ?? Promise.resolve();
    this.#transport = undefined;
    const to = o.to ?? ConnectionState.CLOSED;
    if (this.#state.can(to)) this.#state.transition(to);
    return closed;
  }

  /** Resolves once a transport that opened after `close()` is closed too (its DELETE answered). */
  settled(): Promise<void> {
    return this.#lateClose;
  }

  /** Opens a new WHEP transport and listens to it; the previous one, if any, is already closed. */
  async #open(): Promise<WhepTransport | undefined> {
    const transport = await WhepTransport.open(this.#o.transportOptions());
    const s = this.#state.state;
    if (s === ConnectionState.CLOSED || s === ConnectionState.FAILED) {
      // the session was torn down (or given up) while this one was opening
      this.#lateClose = transport.close();
      return undefined;
    }
    this.#transport = transport;
    const video = this.#o.transportOptions().video();
    if (video) video.srcObject = transport.stream;
    transport.on('message', (m) => this.#o.message(m));
    transport.on('peerState', ({ state }) => this.#onPeerState(state));
    transport.on('stall', () => {
      this.#o.log.warn('video stalled; reconnecting');
      this.#lost();
    });
    transport.on('firstFrame', (size) => this.#o.videoReady(size));
    transport.on('audioSpeaking', ({ speaking }) => this.#o.audioSpeaking(speaking));
    transport.on('animation', ({ frame, arrivalMs }) => this.#o.animation(frame, arrivalMs));
    this.#o.opened(transport.stream);
    return transport;
  }

  #onPeerState(state: RTCPeerConnectionState): void {
    switch (state) {
      case 'connected':
        clearTimeout(this.#connectTimer);
        if (this.#state.can(ConnectionState.CONNECTED)) this.#state.transition(ConnectionState.CONNECTED);
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

  /** The connection was lost: close it, show CONNECTING, and reconnect while the session can live. */
  #lost(): void {
    if (!this.#o.mayReconnect() || this.#reconnector.active) return;
    this.#o.log.warn('connection lost; reconnecting');
    clearTimeout(this.#connectTimer);
    void this.#transport?.close();
    this.#transport = undefined;
    this.#state.transition(ConnectionState.CONNECTING);
    this.#o.lost();
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
}
