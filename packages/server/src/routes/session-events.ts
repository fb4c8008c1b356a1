/**
 * `GET /v1/avatar-session/{id}/events`: the session's events as Server-Sent Events for backends
 * (docs/api.md "Session events"), inside the session scope (session-scope.ts has authorized the
 * session token; opening a stream is one call: an open stream does not keep the session alive).
 * Everything that can fail is answered as JSON before the stream starts: a bad `Last-Event-ID`
 * (400), too many streams (429). Then `replay` (what the stream missed) and each new event from
 * the session's log (sessions/session-events.ts), a comment heartbeat every `heartbeatMs`, and the
 * end after `sessionEnded`. A client that does not read is cut once `maxBufferedBytes` wait in its
 * socket's buffer; it may reconnect with `Last-Event-ID`.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  ErrorResponse,
  formatSessionEvent,
  MAX_EVENT_STREAMS_PER_SESSION,
  SessionIdParams,
} from '@mouthpiece/protocol';
import type { AppContext } from '../app-types.js';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import type { EventStreamOptions, EventSubscriber, LoggedEvent } from '../sessions/session-events.js';
import { oneHeader, oneQueryValue } from '../single-value.js';
import { sessionCallPath } from './session-paths.js';

const errors = { '4xx': ErrorResponse, '5xx': ErrorResponse };
const LAST_EVENT_ID_RE = /^\d{1,15}$/;

/** `Last-Event-ID` (or the `lastEventId` query parameter) as a number; undefined when absent. */
export function lastEventIdOf(req: Pick<FastifyRequest, 'raw' | 'query'>): number | undefined {
  const header = oneHeader(req, 'last-event-id');
  const query = oneQueryValue(req.query, 'lastEventId');
  if (header !== undefined && query !== undefined && header.trim() !== query.trim())
    throw new ApiError(
      'INVALID_REQUEST',
      'Last-Event-ID is given both as a header and as the lastEventId query parameter, with different values; send one',
    );
  const value = header ?? query;
  if (value === undefined) return undefined;
  if (!LAST_EVENT_ID_RE.test(value.trim()))
    throw new ApiError(
      'INVALID_REQUEST',
      `Last-Event-ID must be the id of an event this stream sent (a whole number such as 42, or 0 for every event kept), not "${value.slice(0, 40)}"`,
    );
  return Number(value.trim());
}

export const sessionEventRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { events } = ctx;
  const options = events.streamOptions;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    sessionCallPath('events'),
    {
      // a HEAD would hold a stream open (and a place under the cap) with nothing to read: 405
      exposeHeadRoute: false,
      schema: {
        tags: ['session'],
        security: [{ Bearer: [] }],
        summary: "The session's events (Server-Sent Events) for backends",
        params: SessionIdParams,
        headers: Type.Object({
          'last-event-id': Type.Optional(
            Type.String({
              description: 'The id of the last event received: what came after it is sent first',
            }),
          ),
        }),
        querystring: Type.Object({
          lastEventId: Type.Optional(
            Type.String({ description: 'Last-Event-ID for clients that cannot set headers' }),
          ),
        }),
        response: errors,
      },
    },
    async (req, reply) => {
      const lastEventId = lastEventIdOf(req);
      const sessionId = req.avatarSession.id;
      const stream = new EventStream(reply.raw, ctx.clock, options, req.log, sessionId);
      const opened = events.open(sessionId, lastEventId, stream);
      if (!opened.ok) {
        switch (opened.reason) {
          case 'unknown':
            throw new ApiError('SESSION_ENDED');
          case 'limit':
            throw new ApiError(
              'RATE_LIMITED',
              `This session has ${MAX_EVENT_STREAMS_PER_SESSION} event streams open, the most it may; close one before opening another`,
            );
          case 'future':
            throw new ApiError(
              'INVALID_REQUEST',
              `Last-Event-ID ${lastEventId} is beyond this session's last event (${opened.lastId}); it is not from this session's stream. Reconnect without it, or with 0 for every event kept`,
            );
        }
      }
      reply.hijack();
      stream.start(reply.getHeaders(), opened.replay, opened.close);
      req.log.debug({ sessionId, replayed: opened.replay.length }, 'event stream opened');
      reply.raw.once('close', () => req.log.debug({ sessionId }, 'event stream closed'));
    },
  );
};

type Headers = Record<string, string | number | string[] | undefined>;

/** One open stream: its socket, its heartbeat, and its end. */
class EventStream implements EventSubscriber {
  #heartbeat: unknown;
  #unsubscribe: (() => void) | undefined;
  #done = false;

  constructor(
    readonly res: ServerResponse,
    readonly clock: Clock,
    readonly options: EventStreamOptions,
    readonly log: FastifyBaseLogger,
    readonly sessionId: string,
  ) {}

  /** Answers 200 with the headers the hooks set (CORS, the cluster's node), then the replay. */
  start(headers: Headers, replay: LoggedEvent[], unsubscribe: () => void): void {
    this.#unsubscribe = unsubscribe;
    this.res.once('close', () => this.#stop());
    // the caller left while the request was authorized: its 'close' has passed, free the place now
    if (this.res.destroyed || !this.res.socket || this.res.socket.destroyed) {
      this.#stop();
      return;
    }
    const h: Headers = {};
    for (const [k, v] of Object.entries(headers)) if (v !== undefined) h[k] = v;
    this.res.writeHead(200, {
      ...h,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      // the socket closes with the stream: a server closing waits for no keep-alive left behind
      connection: 'close',
    });
    this.res.write(': mouthpiece session events\n\n');
    for (const e of replay) this.res.write(formatSessionEvent(e.id, e.event));
    this.#beat();
  }

  event(e: LoggedEvent): void {
    if (this.#done || this.#stalled()) return;
    this.res.write(formatSessionEvent(e.id, e.event));
  }

  end(): void {
    if (this.#done) return;
    this.res.end();
    this.#stop();
  }

  #beat(): void {
    this.#heartbeat = this.clock.setTimeout(() => {
      if (this.#done || this.#stalled()) return;
      this.res.write(': heartbeat\n\n');
      this.#beat();
    }, this.options.heartbeatMs);
  }

  /** True (and the connection cut) when the client has left too much unread. */
  #stalled(): boolean {
    if (this.res.writableLength <= this.options.maxBufferedBytes) return false;
    this.log.warn(
      { sessionId: this.sessionId, buffered: this.res.writableLength },
      'event stream client does not read; connection closed',
    );
    this.res.destroy();
    this.#stop();
    return true;
  }

  #stop(): void {
    if (this.#done) return;
    this.#done = true;
    this.clock.clearTimeout(this.#heartbeat);
    this.#unsubscribe?.();
  }
}
