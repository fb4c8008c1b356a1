/** HTTP calls to the avatar-session API with the retry policy and error mapping. */
import { errorForStatus, MouthpieceError } from './errors.js';
import {
  backoffMs,
  parseRetryAfter,
  shouldRetry,
  type AttemptFailure,
  type RetryConfig,
  type RetryKind,
} from './retry.js';
import type { Logger } from './logger.js';
import { ClientErrorCode } from '@mouthpiece/protocol';

export interface RequestOptions {
  auth: { bearer: string } | { ks: string } | undefined;
  json?: unknown;
  form?: FormData;
  kind: RetryKind;
  keepalive?: boolean;
  /** Abandon an attempt that has no answer after this long (a network that drops packets hangs). */
  timeoutMs?: number;
  /** At most this many attempts (default: the retry config's maxAttempts). */
  maxAttempts?: number;
  /** Abandons the request (a network error, as a timeout is). */
  signal?: AbortSignal;
}

export class ApiClient {
  readonly #base: string;
  readonly #retry: RetryConfig;
  readonly #log: Logger;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(
    baseUrl: string,
    retry: RetryConfig,
    log: Logger,
    sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
  ) {
    this.#base = baseUrl.replace(/\/+$/, '');
    this.#retry = retry;
    this.#log = log;
    this.#sleep = sleep;
  }

  /** Fire-and-forget POST `{}` that outlives the page (fetch keepalive), for pagehide. */
  beacon(path: string, bearer: string): void {
    void fetch(`${this.#base}${path}`, {
      method: 'POST',
      keepalive: true,
      headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/json' },
      body: '{}',
    }).catch(() => undefined);
  }

  async post<T>(path: string, o: RequestOptions): Promise<T> {
    const headers: Record<string, string> = {};
    if (o.auth && 'bearer' in o.auth) headers['Authorization'] = `Bearer ${o.auth.bearer}`;
    if (o.auth && 'ks' in o.auth) headers['Authorization'] = `KS ${o.auth.ks}`;
    if (o.json !== undefined) headers['Content-Type'] = 'application/json';
    const maxAttempts = o.maxAttempts ?? this.#retry.maxAttempts;
    for (let attempt = 1; ; attempt++) {
      let failure: AttemptFailure;
      const abort = new AbortController();
      const timer = o.timeoutMs === undefined ? undefined : setTimeout(() => abort.abort(), o.timeoutMs);
      const stop = (): void => abort.abort();
      if (o.signal?.aborted) stop();
      o.signal?.addEventListener('abort', stop, { once: true });
      try {
        const res = await fetch(`${this.#base}${path}`, {
          method: 'POST',
          headers,
          body: o.form ?? (o.json !== undefined ? JSON.stringify(o.json) : undefined),
          signal: abort.signal,
          ...(o.keepalive ? { keepalive: true } : {}),
        });
        if (res.ok) return (await res.json()) as T;
        const body = (await res.json().catch(() => ({}))) as {
          error?: string;
          code?: string;
          reason?: string;
        };
        const err = errorForStatus(res.status, body.error ?? `HTTP ${res.status}`, body.code, body.reason);
        failure = { status: res.status, retryAfterSec: parseRetryAfter(res.headers.get('Retry-After')) };
        if (attempt >= maxAttempts || !shouldRetry(o.kind, failure)) throw err;
      } catch (err) {
        if (err instanceof MouthpieceError) throw err;
        failure = { network: true };
        if (attempt >= maxAttempts) {
          throw new MouthpieceError(
            ClientErrorCode.API_REQUEST_FAILED,
            `Request failed: ${err instanceof Error ? err.message : String(err)}`,
          );
        }
      } finally {
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', stop);
      }
      const wait = backoffMs(this.#retry, attempt, failure);
      this.#log.warn(
        `retrying ${path.replace(/\/v1\/avatar-session\/[^/]+/, '/v1/avatar-session/…')} in ${wait} ms`,
      );
      await this.#sleep(wait);
    }
  }
}
