/**
 * What keeps a session alive while a page shows it, and what ends it when the page goes away:
 * keep-alives every min(10 s, idleTimeoutMs / 3), and on `pagehide` a fire-and-forget end
 * (unless the page opted out with `endOnPageHide: false`).
 */
import { ClientErrorCode, KEEP_ALIVE_INTERVAL_MS } from '@mouthpiece/protocol';
import type { ApiClient } from './api-client.js';
import { MouthpieceError } from './errors.js';

/**
 * How often to send keep-alives: every 10 s, or a third of the server's idle timeout when that is
 * shorter (a server with a 3 s timeout needs one a second), never more often than every 250 ms.
 */
export function keepAliveIntervalMs(idleTimeoutMs: number | undefined): number {
  if (typeof idleTimeoutMs !== 'number' || !(idleTimeoutMs > 0)) return KEEP_ALIVE_INTERVAL_MS;
  return Math.max(250, Math.min(KEEP_ALIVE_INTERVAL_MS, Math.floor(idleTimeoutMs / 3)));
}

export class SessionLifetime {
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #onPageHide = (): void => this.#pageHide();

  constructor(
    private readonly o: {
      api: ApiClient;
      sessionId: string;
      token: string;
      idleTimeoutMs: number | undefined;
      endOnPageHide: boolean;
      /** The server answered 404/410: the session is over. */
      ended(err: MouthpieceError): void;
      /** A keep-alive failed otherwise (the next one may succeed). */
      error(e: { code: ClientErrorCode; message: string; details?: unknown }): void;
      /** The page is going away (before the end is sent). */
      pageHide(): void;
    },
  ) {
    this.#timer = setInterval(() => void this.#keepAlive(), keepAliveIntervalMs(o.idleTimeoutMs));
    window.addEventListener('pagehide', this.#onPageHide);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    window.removeEventListener('pagehide', this.#onPageHide);
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
      if (err instanceof MouthpieceError && err.code === ClientErrorCode.SESSION_NOT_FOUND) this.o.ended(err);
      else
        this.o.error(
          err instanceof MouthpieceError
            ? err.toJSON()
            : { code: ClientErrorCode.API_REQUEST_FAILED, message: String(err) },
        );
    }
  }

  #pageHide(): void {
    this.o.pageHide();
    if (this.o.endOnPageHide) this.o.api.beacon(`/v1/avatar-session/${this.o.sessionId}/end`, this.o.token);
  }
}
