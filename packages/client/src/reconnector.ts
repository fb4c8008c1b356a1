/**
 * Reconnecting while the session can live. After a lost connection the owner calls `start()`:
 * an attempt (a new WHEP offer, then ICE) at once, then again with exponential back-off and
 * equal jitter (0.5 s doubling to 4 s), and at once when `nudge()`d (the browser's `online`
 * event, a keep-alive the server answered). A nudge that says the network was down until now
 * (`stale`) also abandons the attempt under way: its requests went out into the outage and may
 * hang on a dead connection for seconds, so a new one goes at once. It stops when an attempt connects, when the server
 * says the session is gone (404/410: `gone`), or when the session must have timed out on the
 * server (`deadline()` passed with no attempt through: `gaveUp`). Time comes from `Timers`, so
 * the whole loop runs in a unit test on a manual clock.
 */
import { ClientErrorCode } from '@mouthpiece/protocol';
import { MouthpieceError } from './errors.js';
import { backoffMs, type RetryConfig } from './retry.js';

/** The clock and timers a reconnector runs on: the browser's, or a test's manual ones. */
export interface Timers {
  now(): number;
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const browserTimers: Timers = {
  now: () => performance.now(),
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** One attempt waits at most this long for ICE to connect after its offer was answered. */
export const RECONNECT_CONNECT_WAIT_MS = 10_000;
/** …and at least this long. */
export const RECONNECT_CONNECT_MIN_WAIT_MS = 2000;

/**
 * How long a reconnect attempt waits for ICE after its answer: four times what the link's first
 * connection took (answer to connected; at least 2 s), doubled after each attempt that did not
 * connect, at most RECONNECT_CONNECT_WAIT_MS (also when the first connection was not measured).
 * An answer right after the network's return can name no address that works (an interface the
 * far side's libwebrtc has not seen come back yet): waiting 10 s for it kept video away for 10 s.
 */
export function connectWaitMs(firstConnectMs: number | undefined, waitsFailed: number): number {
  if (firstConnectMs === undefined) return RECONNECT_CONNECT_WAIT_MS;
  const wait = Math.max(RECONNECT_CONNECT_MIN_WAIT_MS, 4 * firstConnectMs) * 2 ** waitsFailed;
  return Math.min(RECONNECT_CONNECT_WAIT_MS, wait);
}

/** The back-off between attempts (retry n waits within [ceiling/2, ceiling]). */
export const RECONNECT_BACKOFF: RetryConfig = {
  maxAttempts: Infinity,
  initialDelayMs: 500,
  maxDelayMs: 4000,
  backoffMultiplier: 2,
};

export interface ReconnectorOptions {
  /**
   * One attempt: resolves once media can flow again; rejects (a MouthpieceError) otherwise.
   * `signal` aborts when a stale nudge overtakes it: what it has not got an answer for yet, it abandons.
   */
  attempt(n: number, signal: AbortSignal): Promise<void>;
  /** The time (Timers.now) after which the server must have ended the session. */
  deadline(): number;
  /** An attempt is about to start (n counts from 1 since the loss). */
  attempting(n: number): void;
  /** The server answered 404/410: the session is over. */
  gone(err: MouthpieceError): void;
  /** The deadline passed with no attempt through: the session must have timed out. */
  gaveUp(): void;
  timers?: Timers;
  random?: () => number;
}

export class Reconnector {
  readonly #o: ReconnectorOptions;
  readonly #timers: Timers;
  #active = false;
  #inFlight = false;
  #nudged = false;
  #attempts = 0;
  /** Attempts made before the last nudge: the back-off counts from there (the path works again). */
  #beforeNudge = 0;
  #timer: unknown;
  /** The attempt under way's abort (a stale nudge). */
  #abort: AbortController | undefined;

  constructor(o: ReconnectorOptions) {
    this.#o = o;
    this.#timers = o.timers ?? browserTimers;
  }

  /** Reconnecting now (between a loss and a connection, a 404/410 or giving up). */
  get active(): boolean {
    return this.#active;
  }

  /** The connection was lost: start trying (a no-op while already trying). */
  start(): void {
    if (this.#active) return;
    this.#active = true;
    this.#attempts = 0;
    this.#beforeNudge = 0;
    this.#schedule(0);
  }

  /**
   * Try now instead of at the next back-off (the network is probably back). `stale`: the network
   * was down until now, so the attempt under way is abandoned (its signal aborts) and retried.
   */
  nudge(o: { stale?: boolean } = {}): void {
    if (!this.#active) return;
    // an attempt that fails after the network's return backs off from the first step again, not
    // from the long steps the outage ran up (an answer given just as the path came back can name
    // no address that works yet: the next offer should follow soon)
    this.#beforeNudge = this.#attempts;
    if (this.#inFlight) {
      this.#nudged = true; // the attempt under way may be the one that predates the network's return
      if (o.stale) this.#abort?.abort();
      return;
    }
    this.#timers.clear(this.#timer);
    this.#schedule(0);
  }

  stop(): void {
    this.#active = false;
    this.#abort = undefined;
    this.#timers.clear(this.#timer);
    this.#timer = undefined;
  }

  #schedule(ms: number): void {
    this.#timer = this.#timers.set(() => void this.#run(), ms);
  }

  async #run(): Promise<void> {
    if (!this.#active) return;
    if (this.#timers.now() >= this.#o.deadline()) {
      this.stop();
      this.#o.gaveUp();
      return;
    }
    const n = ++this.#attempts;
    this.#inFlight = true;
    this.#nudged = false;
    const abort = (this.#abort = new AbortController());
    this.#o.attempting(n);
    try {
      await this.#o.attempt(n, abort.signal);
      this.#inFlight = false;
      if (this.#active) this.stop();
      return;
    } catch (err) {
      this.#inFlight = false;
      if (!this.#active) return;
      if (err instanceof MouthpieceError && err.code === ClientErrorCode.SESSION_NOT_FOUND) {
        this.stop();
        this.#o.gone(err);
        return;
      }
    }
    const wait = this.#nudged ? 0 : backoffMs(RECONNECT_BACKOFF, n - this.#beforeNudge, {}, this.#o.random);
    const left = Math.max(0, this.#o.deadline() - this.#timers.now());
    this.#schedule(Math.min(wait, left));
  }
}
