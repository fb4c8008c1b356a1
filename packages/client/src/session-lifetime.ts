/**
 * What keeps a session alive while a page shows it, and what ends it when the page goes away:
 * keep-alives every min(10 s, idleTimeoutMs / 4); a failed one retried after a second (not after
 * the full interval) and each abandoned after a bound (a network dropping packets hangs); one at
 * once on the browser's `online` event; on `pagehide` a fire-and-forget end (unless the page
 * opted out with `endOnPageHide: false`). While the page reconnects (`reconnecting(true)`) each
 * keep-alive is a probe of the path to the server: abandoned after `probeTimeoutMs` (a request sent
 * into an outage hangs on a dead connection long after the network is back), one started at most
 * every PROBE_EVERY_MS, and the first answered after failures says so (`alive` with
 * `recovered`: the reconnect retries at once). `stop()` ends all of it: a session the SDK gave up on
 * gets no more keep-alives.
 */
import {
  ClientErrorCode,
  KEEP_ALIVE_INTERVAL_MS,
  TypedEmitter,
  type EventCallbacks,
} from '@mouthpiece/protocol';
import type { ApiClient } from './api-client.js';
import { MouthpieceError } from './errors.js';
import type { Logger } from './logger.js';
import { browserTimers, type Timers } from './reconnector.js';

/**
 * How often to send keep-alives: every 10 s, or a quarter of the server's idle timeout when that
 * is shorter (7.5 s for the default 30 s, so a 20 s outage leaves 2.5 s to spare; a server with a
 * 4 s timeout gets one a second), never more often than every 250 ms.
 */
export function keepAliveIntervalMs(idleTimeoutMs: number | undefined): number {
  if (typeof idleTimeoutMs !== 'number' || !(idleTimeoutMs > 0)) return KEEP_ALIVE_INTERVAL_MS;
  return Math.max(250, Math.min(KEEP_ALIVE_INTERVAL_MS, Math.floor(idleTimeoutMs / 4)));
}

/** After a failed keep-alive, the next one goes this soon (or at the interval, if shorter). */
export const KEEP_ALIVE_RETRY_MS = 1000;
/** A keep-alive with no answer after this long (or the interval, if longer) is abandoned. */
export const KEEP_ALIVE_TIMEOUT_MS = 4000;
/** While reconnecting: a probe (keep-alive) starts at most this often. */
export const PROBE_EVERY_MS = 1000;
/** While reconnecting: a probe is abandoned after this long, or 3 × the last answered one's time if longer. */
export const PROBE_TIMEOUT_MS = 1000;

/** How long a probe waits: 1 s, or three times what the server last took (at most a keep-alive's bound). */
export function probeTimeoutMs(lastRoundTripMs: number, keepAliveTimeoutMs: number): number {
  return Math.min(keepAliveTimeoutMs, Math.max(PROBE_TIMEOUT_MS, 3 * lastRoundTripMs));
}

/** What a lifetime reports, by event name (a closed map). */
export interface SessionLifetimeEvents {
  /** The server answered 404/410: the session is over. */
  ended: { error: MouthpieceError };
  /** The first keep-alive that failed otherwise after one that succeeded (the next may succeed). */
  error: { code: ClientErrorCode; message: string; details?: unknown };
  /**
   * The server answered a keep-alive: the session lives and the server is reachable;
   * `recovered`: the keep-alive before it failed (requests sent until now went into an outage).
   */
  alive: { recovered: boolean };
  /** The browser says the network is back (`online`). */
  online: Record<string, never>;
  /** The page is going away (told before the end is sent). */
  pageHide: Record<string, never>;
}

export class SessionLifetime {
  #timer: unknown;
  #stopped = false;
  #inFlight = false;
  #failing = false;
  #reconnecting = false;
  /** The keep-alive under way's abort (a reconnect starts: it is replaced by a probe). */
  #abort: AbortController | undefined;
  /** How long the last answered keep-alive took (a probe waits a few times that). */
  #roundTripMs = 0;
  #aliveAt: number;
  readonly #intervalMs: number;
  readonly #timers: Timers;
  readonly #onPageHide = (): void => this.#pageHide();
  readonly #onOnline = (): void => {
    this.#events.emit('online', {});
    void this.probe();
  };
  readonly #events: TypedEmitter<SessionLifetimeEvents>;

  constructor(
    private readonly o: {
      api: ApiClient;
      sessionId: string;
      token: string;
      idleTimeoutMs: number | undefined;
      endOnPageHide: boolean;
      log: Logger;
      timers?: Timers;
    },
  ) {
    this.#timers = o.timers ?? browserTimers;
    this.#aliveAt = this.#timers.now();
    this.#intervalMs = keepAliveIntervalMs(o.idleTimeoutMs);
    this.#events = new TypedEmitter<SessionLifetimeEvents>((err, event) =>
      o.log.error(`a lifetime "${String(event)}" listener threw`, err),
    );
    this.#schedule(this.#intervalMs);
    window.addEventListener('pagehide', this.#onPageHide);
    window.addEventListener('online', this.#onOnline);
  }

  on<K extends keyof SessionLifetimeEvents>(
    event: K,
    listener: EventCallbacks<SessionLifetimeEvents>[K],
  ): () => void {
    return this.#events.on(event, listener);
  }

  /** When the server last answered a keep-alive (Timers.now), or when this lifetime began. */
  get aliveAt(): number {
    return this.#aliveAt;
  }

  stop(): void {
    this.#stopped = true;
    this.#timers.clear(this.#timer);
    this.#timer = undefined;
    window.removeEventListener('pagehide', this.#onPageHide);
    window.removeEventListener('online', this.#onOnline);
    this.#events.removeAllListeners();
  }

  /**
   * The page reconnects (true) or is connected again (false). Reconnecting, the keep-alive under
   * way is abandoned and a probe goes at once; then one at most every PROBE_EVERY_MS until one is answered.
   */
  reconnecting(on: boolean): void {
    if (this.#stopped || on === this.#reconnecting) return;
    this.#reconnecting = on;
    if (!on) return;
    this.#abort?.abort(); // its failure schedules the next at once
    void this.probe();
  }

  /** A keep-alive now (the video stalled, the network is back); none while one is under way. */
  async probe(): Promise<void> {
    if (this.#stopped || this.#inFlight) return;
    this.#timers.clear(this.#timer);
    await this.#keepAlive();
  }

  #schedule(ms: number): void {
    if (!this.#stopped) this.#timer = this.#timers.set(() => void this.#keepAlive(), ms);
  }

  async #keepAlive(): Promise<void> {
    this.#inFlight = true;
    let next = this.#intervalMs;
    const startedAt = this.#timers.now();
    const bound = Math.max(KEEP_ALIVE_TIMEOUT_MS, this.#intervalMs);
    const abort = (this.#abort = new AbortController());
    try {
      await this.o.api.post(`/v1/avatar-session/${this.o.sessionId}/keep-alive`, {
        auth: { bearer: this.o.token },
        json: {},
        kind: 'safe',
        maxAttempts: 1,
        timeoutMs: this.#reconnecting ? probeTimeoutMs(this.#roundTripMs, bound) : bound,
        signal: abort.signal,
      });
      if (this.#stopped) return;
      this.#aliveAt = this.#timers.now();
      this.#roundTripMs = this.#aliveAt - startedAt;
      const recovered = this.#failing;
      this.#failing = false;
      this.#events.emit('alive', { recovered });
    } catch (err) {
      if (this.#stopped) return;
      if (err instanceof MouthpieceError && err.code === ClientErrorCode.SESSION_NOT_FOUND) {
        this.#events.emit('ended', { error: err });
        return;
      }
      next = this.#reconnecting
        ? Math.max(0, startedAt + PROBE_EVERY_MS - this.#timers.now())
        : Math.min(KEEP_ALIVE_RETRY_MS, this.#intervalMs);
      if (abort.signal.aborted)
        next = 0; // abandoned for a probe (reconnecting): no failure of its own
      else if (!this.#failing)
        this.#events.emit(
          'error',
          err instanceof MouthpieceError
            ? err.toJSON()
            : { code: ClientErrorCode.API_REQUEST_FAILED, message: String(err) },
        );
      if (!abort.signal.aborted) this.#failing = true;
    } finally {
      this.#inFlight = false;
      if (this.#abort === abort) this.#abort = undefined;
    }
    this.#timers.clear(this.#timer);
    this.#schedule(next);
  }

  #pageHide(): void {
    this.#events.emit('pageHide', {});
    if (this.o.endOnPageHide) this.o.api.beacon(`/v1/avatar-session/${this.o.sessionId}/end`, this.o.token);
  }
}
