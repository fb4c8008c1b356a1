/**
 * What keeps a session alive while a page shows it, and what ends it when the page goes away:
 * keep-alives every min(10 s, idleTimeoutMs / 3), and on `pagehide` a fire-and-forget end
 * (unless the page opted out with `endOnPageHide: false`).
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

/**
 * How often to send keep-alives: every 10 s, or a third of the server's idle timeout when that is
 * shorter (a server with a 3 s timeout needs one a second), never more often than every 250 ms.
 */
export function keepAliveIntervalMs(idleTimeoutMs: number | undefined): number {
  if (typeof idleTimeoutMs !== 'number' || !(idleTimeoutMs > 0)) return KEEP_ALIVE_INTERVAL_MS;
  return Math.max(250, Math.min(KEEP_ALIVE_INTERVAL_MS, Math.floor(idleTimeoutMs / 3)));
}

/** What a lifetime reports, by event name (a closed map). */
export interface SessionLifetimeEvents {
  /** The server answered 404/410: the session is over. */
  ended: { error: MouthpieceError };
  /** A keep-alive failed otherwise (the next one may succeed). */
  error: { code: ClientErrorCode; message: string; details?: unknown };
  /** The page is going away (told before the end is sent). */
  pageHide: Record<string, never>;
}

export class SessionLifetime {
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #onPageHide = (): void => this.#pageHide();
  readonly #events: TypedEmitter<SessionLifetimeEvents>;

  constructor(
    private readonly o: {
      api: ApiClient;
      sessionId: string;
      token: string;
      idleTimeoutMs: number | undefined;
      endOnPageHide: boolean;
      log: Logger;
    },
  ) {
    this.#events = new TypedEmitter<SessionLifetimeEvents>((err, event) =>
      o.log.error(`a lifetime "${String(event)}" listener threw`, err),
    );
    this.#timer = setInterval(() => void this.#keepAlive(), keepAliveIntervalMs(o.idleTimeoutMs));
    window.addEventListener('pagehide', this.#onPageHide);
  }

  on<K extends keyof SessionLifetimeEvents>(
    event: K,
    listener: EventCallbacks<SessionLifetimeEvents>[K],
  ): () => void {
    return this.#events.on(event, listener);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    window.removeEventListener('pagehide', this.#onPageHide);
    this.#events.removeAllListeners();
  }

  /** A keep-alive now (the video stalled): a session that ended is reported at once. */
  probe(): Promise<void> {
    return this.#keepAlive();
  }

  async #keepAlive(): Promise<void> {
    try {
      await this.o.api.post(`/v1/avatar-session/${this.o.sessionId}/keep-alive`, {
        auth: { bearer: this.o.token },
        json: {},
        kind: 'safe',
      });
    } catch (err) {
      if (this.#timer === undefined) return; // stopped meanwhile
      if (err instanceof MouthpieceError && err.code === ClientErrorCode.SESSION_NOT_FOUND)
        this.#events.emit('ended', { error: err });
      else
        this.#events.emit(
          'error',
          err instanceof MouthpieceError
            ? err.toJSON()
            : { code: ClientErrorCode.API_REQUEST_FAILED, message: String(err) },
        );
    }
  }

  #pageHide(): void {
    this.#events.emit('pageHide', {});
    if (this.o.endOnPageHide) this.o.api.beacon(`/v1/avatar-session/${this.o.sessionId}/end`, this.o.token);
  }
}
