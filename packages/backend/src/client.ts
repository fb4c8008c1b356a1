/**
 * The entry: a client holding the session credential (`KS`), which creates sessions. Everything
 * after create goes through the BackendSession it returns (or one rebuilt from a stored id and token).
 */
import type { CreateSessionBody, CreateSessionResponse } from '@mouthpiece/protocol';
import { call, realSleep, type HttpOptions, type Sleep } from './http.js';
import { BackendSession, type SessionTokens } from './session.js';

export interface BackendClientOptions {
  /** Where Mouthpiece answers, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** The session credential (`mp_…`); only createSession needs it. */
  credential?: string;
  /** Attempts per call when the server answers 429 or 503 (default 5), waiting its Retry-After. */
  maxAttempts?: number;
  /** Injected I/O: the fetch to use (default the global one)… */
  fetch?: typeof fetch;
  /** …and how to wait (default timers; tests pass one that moves a manual clock). */
  sleep?: Sleep;
}

export interface MouthpieceBackend {
  /** `POST /v1/avatar-session` with the credential. */
  createSession(body: CreateSessionBody, signal?: AbortSignal): Promise<BackendSession>;
  /** A session created earlier (its id and token), e.g. by another process. */
  session(tokens: SessionTokens): BackendSession;
}

export function createBackendClient(opts: BackendClientOptions): MouthpieceBackend {
  const http: HttpOptions = {
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    fetch: opts.fetch ?? ((input, init) => fetch(input, init)),
    sleep: opts.sleep ?? realSleep,
    maxAttempts: opts.maxAttempts ?? 5,
  };
  return {
    async createSession(body, signal) {
      if (opts.credential === undefined) throw new TypeError('createSession needs the credential option');
      const r = await call<CreateSessionResponse & { viewerToken?: unknown }>(http, '/v1/avatar-session', {
        auth: `KS ${opts.credential}`,
        json: body,
        signal,
      });
      return new BackendSession(http, {
        sessionId: r.sessionId,
        token: r.token,
        ...(typeof r.viewerToken === 'string' ? { viewerToken: r.viewerToken } : {}),
      });
    },
    session: (tokens) => new BackendSession(http, tokens),
  };
}
