/**
 * When the SDK gives up on a session, and how it ends it then: the server
 * ends a session `idleTimeoutMs` after the last request it received, so a session whose last
 * answered keep-alive is older than that (plus a little slack for the server's own timer) must
 * have timed out. Then the SDK gives up (no more keep-alives) and ends the session when the server
 * can be reached again, which also tells the page why it ended (410 with its reason).
 */
import { DEFAULT_IDLE_TIMEOUT_MS, isRetryableStatus } from '@mouthpiece/protocol';
import type { ApiClient } from './api-client.js';
import { MouthpieceError } from './errors.js';
import { browserTimers, type Timers } from './reconnector.js';
import type { AvatarSessionEvents } from './session-types.js';

/** Slack past the idle timeout before the SDK believes the server ended the session. */
export const IDLE_SLACK_MS = 2000;
/** A given-up session's end is retried this long, while the page cannot reach the server. */
export const END_RETRY_FOR_MS = 5 * 60_000;
const END_RETRY_EVERY_MS = 3000;
const END_TIMEOUT_MS = 4000;

/** The time (Timers.now) after which the session must have timed out on the server. */
export function idleDeadline(aliveAt: number | undefined, idleTimeoutMs: number | undefined): number {
  const idle =
    typeof idleTimeoutMs === 'number' && idleTimeoutMs > 0 ? idleTimeoutMs : DEFAULT_IDLE_TIMEOUT_MS;
  return (aliveAt ?? browserTimers.now()) + idle + IDLE_SLACK_MS;
}

/** The `error` a page gets when the SDK gave up reconnecting (the session must have timed out). */
export const GAVE_UP_ERROR = {
  code: 'RTC_CONNECTION_FAILED',
  message:
    'The connection was lost for longer than the session can live without keep-alives; the SDK stopped (it ends the session once the server can be reached)',
  details: { code: 'GAVE_UP' },
} as const satisfies AvatarSessionEvents['error'];

/**
 * POSTs `end` until the server answers (every 3 s, for 5 minutes at most), then calls `done`:
 * with no error when it ended the session, with the server's error (404/410 and its reason: the
 * session had already ended) otherwise; never called if the server was not reached in time.
 */
export function endWhenReachable(
  api: ApiClient,
  sessionId: string,
  token: string,
  done: (err?: MouthpieceError) => void,
  timers: Timers = browserTimers,
): void {
  const until = timers.now() + END_RETRY_FOR_MS;
  const tryOnce = async (): Promise<void> => {
    try {
      await api.post(`/v1/avatar-session/${sessionId}/end`, {
        auth: { bearer: token },
        json: {},
        kind: 'safe',
        maxAttempts: 1,
        timeoutMs: END_TIMEOUT_MS,
      });
      done();
    } catch (err) {
      const status = err instanceof MouthpieceError ? err.details?.status : undefined;
      if (err instanceof MouthpieceError && status !== undefined && !isRetryableStatus(status)) done(err);
      else if (timers.now() < until) timers.set(() => void tryOnce(), END_RETRY_EVERY_MS);
    }
  };
  void tryOnce();
}
