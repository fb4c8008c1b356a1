/**
 * A loopback stand-in for `GET /v1/avatar-session/{id}/events`, written with the protocol's own
 * `formatSessionEvent`: it numbers events, replays those after `Last-Event-ID`, sends heartbeat
 * comments on demand, and can drop every connection (a proxy restart) to exercise reconnects.
 * Until the real route lands, the backend client's tests run against this.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatSessionEvent, type SessionEvent } from '@mouthpiece/protocol';

export interface EventsStandin {
  /** Base URL: the route is `${url}/v1/avatar-session/${sessionId}/events`. */
  url: string;
  sessionId: string;
  token: string;
  /** The Last-Event-ID header of each connection, in order ('' when none). */
  connections: string[];
  /** Open connections now. */
  readonly open: number;
  emit(e: SessionEvent): void;
  /** A comment line (the heartbeat), optionally cut in two writes. */
  comment(text?: string): void;
  /** Destroys every open connection, mid-stream. */
  drop(): void;
  /** Answers the next `n` connections with this status and error body. */
  refuseNext(n: number, status: number, code: string, headers?: Record<string, string>): void;
  close(): Promise<void>;
}

export async function eventsStandin(sessionId = 'sess1', token = 'tok1'): Promise<EventsStandin> {
  const log: Array<{ id: number; e: SessionEvent }> = [];
  const clients = new Set<ServerResponse>();
  const connections: string[] = [];
  let refusals: { n: number; status: number; code: string; headers: Record<string, string> } | undefined;
  const server = createServer((req, res) => {
    if (req.url !== `/v1/avatar-session/${sessionId}/events` || req.method !== 'GET') {
      res.writeHead(404).end();
      return;
    }
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: false, error: 'Invalid or expired token', code: 'INVALID_TOKEN' }));
      return;
    }
    const last = typeof req.headers['last-event-id'] === 'string' ? req.headers['last-event-id'] : '';
    connections.push(last);
    if (refusals && refusals.n > 0) {
      refusals.n--;
      res.writeHead(refusals.status, { 'content-type': 'application/json', ...refusals.headers });
      res.end(JSON.stringify({ success: false, error: 'refused by the stand-in', code: refusals.code }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const after = last === '' ? 0 : Number(last);
    for (const { id, e } of log) if (id > after) res.write(formatSessionEvent(id, e));
    if (log.at(-1)?.e.type === 'sessionEnded') {
      res.end();
      return;
    }
    clients.add(res);
    res.on('close', () => clients.delete(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sessionId,
    token,
    connections,
    get open() {
      return clients.size;
    },
    emit(e) {
      const id = log.length + 1;
      log.push({ id, e });
      for (const c of clients) {
        c.write(formatSessionEvent(id, e));
        if (e.type === 'sessionEnded') c.end();
      }
    },
    comment(text = 'heartbeat') {
      for (const c of clients) {
        c.write(':');
        c.write(` ${text}\n\n`);
      }
    },
    drop() {
      for (const c of clients) c.destroy();
      clients.clear();
    },
    refuseNext(n, status, code, headers = {}) {
      refusals = { n, status, code, headers };
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
