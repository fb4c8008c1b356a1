/**
 * One HTTP call to Mouthpiece, with the policy every call shares: JSON in and out, errors as
 * MouthpieceError with the server's code and message, and 429/503 retried after `Retry-After`
 * (the server's own advice) up to `maxAttempts`. Fetch and sleep are injected (tests, proxies).
 */
import { CLIENT_ERROR, MouthpieceError } from './errors.js';

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface HttpOptions {
  baseUrl: string;
  fetch: typeof fetch;
  sleep: Sleep;
  /** Attempts per call when the server answers 429 or 503 (default 5). */
  maxAttempts: number;
}

export interface CallInit {
  method?: 'GET' | 'POST';
  auth: string;
  json?: unknown;
  form?: FormData;
  signal?: AbortSignal | undefined;
  /** Stops only the waits between attempts (default `signal`): a request already sent completes. */
  waitSignal?: AbortSignal | undefined;
}

/** Waits ms, or rejects with the signal's reason when it fires first. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(abortError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export function abortError(): MouthpieceError {
  return new MouthpieceError(0, CLIENT_ERROR.ABORTED, 'aborted by the caller');
}

/** Backoff when an answer gives no Retry-After: 250 ms, doubling, at most 5 s. */
export function backoffMs(attempt: number): number {
  return Math.min(5000, 250 * 2 ** attempt);
}

export async function call<T extends object>(o: HttpOptions, path: string, init: CallInit): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await once<T>(o, path, init);
    } catch (err) {
      const retry =
        err instanceof MouthpieceError &&
        (err.status === 429 || err.status === 503) &&
        attempt + 1 < o.maxAttempts;
      if (!retry) throw err;
      await o.sleep(err.retryAfterMs ?? backoffMs(attempt), init.waitSignal ?? init.signal);
    }
  }
}

async function once<T extends object>(o: HttpOptions, path: string, init: CallInit): Promise<T> {
  const headers: Record<string, string> = { authorization: init.auth };
  let body: string | FormData | undefined;
  if (init.form) body = init.form;
  else if (init.method !== 'GET') {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json ?? {});
  }
  let res: Response;
  try {
    res = await o.fetch(`${o.baseUrl}${path}`, {
      method: init.method ?? 'POST',
      headers,
      ...(body === undefined ? {} : { body }),
      ...(init.signal ? { signal: init.signal } : {}),
    });
  } catch (err) {
    if (init.signal?.aborted) throw abortError();
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new MouthpieceError(
      0,
      CLIENT_ERROR.NETWORK,
      `Mouthpiece is not reachable at ${o.baseUrl}: ${cause?.code ?? cause?.message ?? String(err)}`,
      { cause: err },
    );
  }
  return readAnswer<T>(res);
}

/** An answer's JSON, or its error as MouthpieceError. */
export async function readAnswer<T extends object>(res: Response): Promise<T> {
  const text = await res.text().catch(() => '');
  let body: Record<string, unknown> = {};
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v === 'object' && v !== null) body = v as Record<string, unknown>;
  } catch {
    // not JSON (a proxy's error page): the status and the start of the text say enough
  }
  if (res.ok) {
    if (body['success'] !== true)
      throw new MouthpieceError(
        res.status,
        CLIENT_ERROR.BAD_RESPONSE,
        `expected a Mouthpiece JSON answer, got: ${text.slice(0, 200)}`,
      );
    return body as T;
  }
  const retryAfter = Number(res.headers.get('retry-after'));
  const code = typeof body['code'] === 'string' ? body['code'] : `HTTP_${res.status}`;
  const message = typeof body['error'] === 'string' ? body['error'] : text.slice(0, 200) || res.statusText;
  return Promise.reject(
    new MouthpieceError(res.status, code, message, {
      ...(Number.isFinite(retryAfter) && retryAfter >= 0 && res.headers.has('retry-after')
        ? { retryAfterMs: retryAfter * 1000 }
        : {}),
      ...(typeof body['reason'] === 'string' ? { reason: body['reason'] } : {}),
    }),
  );
}
