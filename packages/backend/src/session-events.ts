/**
 * `GET /v1/avatar-session/{id}/events` as an async iterator (the wire format is
 * packages/protocol/src/session-events.ts). A dropped connection is reopened with
 * `Last-Event-ID`, so the server replays what was missed; the wait between attempts backs off
 * (250 ms doubling to 5 s, or the server's `retry`/`Retry-After`) and resets once a connection
 * delivers. The iteration ends after `sessionEnded`, when the signal fires, or when `break`
 * leaves the loop; an answer that will not change (401, 403, 404, 410) is thrown.
 */
import { parseSessionEvent, type SessionEvent } from '@mouthpiece/protocol';
import { MouthpieceError } from './errors.js';
import { backoffMs, readAnswer, type HttpOptions } from './http.js';
import { SseParser } from './sse-parser.js';

export interface EventsOptions {
  signal?: AbortSignal;
  /** Resume after this event id (as a reconnect does). */
  lastEventId?: string;
  /** Called before each reconnect with why the last connection ended (for logs). */
  onReconnect?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
  /** Connection attempts in a row that may fail before the error is thrown (default Infinity). */
  maxAttempts?: number;
}

/** One event and the id to resume after it. */
export interface ReceivedSessionEvent {
  id: string;
  event: SessionEvent;
}

export async function* sessionEvents(
  http: HttpOptions,
  path: string,
  token: string,
  opts: EventsOptions = {},
): AsyncGenerator<ReceivedSessionEvent, void, undefined> {
  const parser = new SseParser(opts.lastEventId ?? '');
  const maxAttempts = opts.maxAttempts ?? Infinity;
  let failures = 0;
  while (!opts.signal?.aborted) {
    const local = new AbortController();
    const onAbort = (): void => local.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    let delivered = false;
    let error: unknown;
    let retryAfterMs: number | undefined;
    try {
      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        accept: 'text/event-stream',
      };
      if (parser.lastEventId !== '') headers['last-event-id'] = parser.lastEventId;
      const res = await http.fetch(`${http.baseUrl}${path}`, { headers, signal: local.signal });
      if (!res.ok || !res.body)
        await readAnswer(res); // throws the server's error
      else {
        const decoder = new TextDecoder();
        for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
          for (const m of parser.push(decoder.decode(chunk, { stream: true }))) {
            const event = parseSessionEvent(m.event, m.data);
            if (!event) continue; // a newer server's event
            delivered = true;
            failures = 0;
            yield { id: m.lastEventId, event };
            if (event.type === 'sessionEnded') return;
          }
        }
        error = new Error('the event stream closed');
      }
    } catch (err) {
      if (opts.signal?.aborted) return;
      if (err instanceof MouthpieceError) {
        if (!err.retryable) throw err;
        retryAfterMs = err.retryAfterMs;
      }
      error = err;
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      local.abort(); // a `break` in the caller's loop lands here: close the connection
    }
    parser.reset();
    if (delivered) failures = 0;
    failures++;
    if (failures >= maxAttempts) throw error;
    const delayMs = retryAfterMs ?? parser.retryMs ?? backoffMs(failures - 1);
    opts.onReconnect?.({ attempt: failures, delayMs, error });
    try {
      await http.sleep(delayMs, opts.signal);
    } catch {
      return; // aborted while waiting
    }
  }
}
