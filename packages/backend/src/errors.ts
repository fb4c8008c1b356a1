/**
 * What a Mouthpiece call that failed reports: the HTTP status, the server's stable `code`
 * (docs/api.md "All codes") and its message. Branch on `code`, never on `message`.
 */
export class MouthpieceError extends Error {
  override readonly name = 'MouthpieceError';
  /** The HTTP status, or 0 when no answer came (connection refused, aborted, a bad answer). */
  readonly status: number;
  /** The server's code (`RATE_LIMITED`, `SESSION_ENDED`, …), or this client's (`NETWORK`, `ABORTED`, `BAD_RESPONSE`). */
  readonly code: string;
  /** 408, 429 and 5xx, and network failures: the same call may succeed later. */
  readonly retryable: boolean;
  /** From `Retry-After`, when the answer had one. */
  readonly retryAfterMs: number | undefined;
  /** On 410: why the session ended (`idle_timeout`, `ended_by_client`, …). */
  readonly reason: string | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    extra: { retryAfterMs?: number; reason?: string; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.status = status;
    this.code = code;
    this.retryable = status === 0 ? code === 'NETWORK' : status === 408 || status === 429 || status >= 500;
    this.retryAfterMs = extra.retryAfterMs;
    this.reason = extra.reason;
  }
}

/** Codes of failures that happened on this side of the wire. */
export const CLIENT_ERROR = {
  /** No answer: refused, reset, DNS. */
  NETWORK: 'NETWORK',
  /** The caller's AbortSignal fired. */
  ABORTED: 'ABORTED',
  /** An answer that is not what the API gives (not JSON, fields missing). */
  BAD_RESPONSE: 'BAD_RESPONSE',
} as const;
