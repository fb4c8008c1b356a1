/**
 * The session's event stream for backends: `GET /v1/avatar-session/{id}/events`, Server-Sent
 * Events (docs/api.md). Each event is `id: <n>` (increasing per session), `event: <type>` and
 * `data: <JSON of the rest>`. The same facts the browser's data channel carries, in the order the
 * engine produced them; a backend that takes turns reads them here instead of relaying them back
 * from the page. The server writes these with `formatSessionEvent`; the backend client
 * (`@mouthpiece/backend`) reads them with `parseSessionEvent`.
 */

export type SessionEvent =
  | { type: 'speakingStart'; turnId: string }
  /** A word of the turn, `offsetMs` after its start, where the voice gives timings. */
  | { type: 'word'; turnId: string; text: string; offsetMs: number }
  | { type: 'speakingEnd'; turnId: string; interrupted: boolean }
  /** A voice provider (or a streamed audio turn) failed the turn; the session lives. */
  | { type: 'turnFailed'; turnId: string; code: string; message: string }
  /** A viewer's media connected, or the last one was lost. */
  | { type: 'viewer'; state: 'connected' | 'lost' }
  /** The session ended; the stream closes after this event. */
  | { type: 'sessionEnded'; reason: string };

export type SessionEventType = SessionEvent['type'];

/** Events the server keeps per session for `Last-Event-ID` replay: at least this many… */
export const SESSION_EVENTS_REPLAY_COUNT = 256;
/** …and at least those of this long ago. */
export const SESSION_EVENTS_REPLAY_MS = 5 * 60 * 1000;
/** A comment line this often keeps proxies and idle timers from closing the stream. */
export const SESSION_EVENTS_HEARTBEAT_MS = 15_000;
/** Event streams open at once per session; one more is refused (429). */
export const MAX_EVENT_STREAMS_PER_SESSION = 4;

/** One event as SSE text: `id`, `event`, `data` lines and the blank line that ends it. */
export function formatSessionEvent(id: number, e: SessionEvent): string {
  const { type, ...data } = e;
  return `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** An SSE message's `event` and `data` as a SessionEvent; unknown types or bad data give undefined. */
export function parseSessionEvent(type: string, data: string): SessionEvent | undefined {
  let d: unknown;
  try {
    d = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof d !== 'object' || d === null || Array.isArray(d)) return undefined;
  const m = d as Record<string, unknown>;
  const str = (k: string): string | undefined => (typeof m[k] === 'string' ? m[k] : undefined);
  const turnId = str('turnId');
  switch (type) {
    case 'speakingStart':
      return turnId === undefined ? undefined : { type, turnId };
    case 'word': {
      const text = str('text');
      const offsetMs = m['offsetMs'];
      return turnId === undefined || text === undefined || typeof offsetMs !== 'number'
        ? undefined
        : { type, turnId, text, offsetMs };
    }
    case 'speakingEnd':
      return turnId === undefined ? undefined : { type, turnId, interrupted: m['interrupted'] === true };
    case 'turnFailed':
      return turnId === undefined
        ? undefined
        : { type, turnId, code: str('code') ?? 'unknown', message: str('message') ?? '' };
    case 'viewer': {
      const state = str('state');
      return state === 'connected' || state === 'lost' ? { type, state } : undefined;
    }
    case 'sessionEnded':
      return { type, reason: str('reason') ?? 'unknown' };
    default:
      return undefined; // a newer server's event: ignored
  }
}
