/**
 * Forwards a request to another node over HTTP and passes its answer back unchanged: status,
 * headers (less hop-by-hop ones) and body, streamed both ways (a say-audio upload is piped, not
 * buffered; an event stream passes each event as it comes, and closes when either side goes). Called from `onRequest` hooks, before Fastify reads the body. The request carries the
 * cluster key, so the receiving node serves it itself (it never forwards again) and does not count
 * it twice against rate limits. A node that does not answer is a 503 the caller may retry.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { FastifyBaseLogger } from 'fastify';
import { errorBody } from '@mouthpiece/protocol';
import { ApiError } from '../errors.js';
import { headerValues, type HeaderSource } from '../single-value.js';

/** The header a forwarded request carries (its value: the cluster key). */
export const FORWARD_HEADER = 'x-mouthpiece-forwarded';
/** The node that served a request, on every answer in cluster mode. */
export const NODE_HEADER = 'x-mouthpiece-node';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/**
 * Headers the holder takes exactly once (a repeat is its 400): Node's `headers` keeps only the
 * first of these, so a repeat is forwarded as sent, and the holder answers it as it would directly.
 */
const SINGLE_VALUED = ['authorization', 'content-type'];

/** What forwarding needs of an incoming call (a Fastify request is one). */
export interface InboundCall {
  raw: IncomingMessage;
  /** The caller's address (with trustProxy, the client's). */
  ip: string;
  log: FastifyBaseLogger;
}

/** What forwarding needs of the call's answer (a Fastify reply is one). */
export interface CallAnswer {
  raw: ServerResponse;
  /** Takes the answer over from the framework: it is written on `raw` from now on. */
  hijack(): unknown;
  header(name: string, value: string): unknown;
}

/** The key nodes prove membership with: derived from the shared JWT secret. */
export function clusterKey(jwtSecret: string): string {
  return createHmac('sha256', jwtSecret).update('mouthpiece cluster forward v1').digest('base64url');
}

export class Forwarder {
  readonly #key: Buffer;
  readonly #nodeId: string;
  readonly #http = new HttpAgent({ keepAlive: true, maxSockets: 256 });
  readonly #https = new HttpsAgent({ keepAlive: true, maxSockets: 256 });
  /** Event streams passing through, ended when this node closes (endStreams). */
  readonly #streams = new Set<ServerResponse>();

  constructor(key: string, nodeId: string) {
    this.#key = Buffer.from(key);
    this.#nodeId = nodeId;
  }

  /** True when the request came from another node of this cluster. */
  isForwarded(req: HeaderSource): boolean {
    const values = headerValues(req, FORWARD_HEADER);
    if (values.length !== 1) return false;
    const b = Buffer.from(values[0]!);
    return b.length === this.#key.length && timingSafeEqual(b, this.#key);
  }

  /**
   * Sends `req` to `baseUrl` + its path and answers with what comes back. Resolves once the answer
   * is piped; rejects with a 503 ApiError (before anything was answered) when the node is unreachable.
   */
  async forward(req: InboundCall, reply: CallAnswer, baseUrl: string): Promise<void> {
    const upstream = await this.#send(req.raw, req.ip, baseUrl, req.log);
    reply.hijack();
    await answer(upstream, reply.raw, this.#nodeId, this.#streams);
  }

  /**
   * The same for a request Fastify never saw (the fast path, fast-path.ts): an unreachable node is
   * answered here, with our 503 error body, and the promise rejects.
   */
  async forwardRaw(
    req: IncomingMessage,
    res: ServerResponse,
    baseUrl: string,
    log: FastifyBaseLogger,
  ): Promise<void> {
    let upstream: IncomingMessage;
    try {
      upstream = await this.#send(req, req.socket.remoteAddress ?? '', baseUrl, log);
    } catch (err) {
      const e = err as ApiError;
      res.writeHead(e.status, { 'content-type': 'application/json; charset=utf-8', ...e.headers });
      res.end(JSON.stringify(errorBody(e.code, e.message)));
      throw err;
    }
    await answer(upstream, res, this.#nodeId, this.#streams);
  }

  /**
   * Cuts the event streams passing through this node (it is closing, and the HTTP server waits
   * for open answers); their readers reconnect with Last-Event-ID through another node.
   */
  endStreams(): void {
    for (const res of this.#streams) res.destroy();
    this.#streams.clear();
  }

  #send(req: IncomingMessage, ip: string, baseUrl: string, log: FastifyBaseLogger): Promise<IncomingMessage> {
    const target = new URL(req.url ?? '/', baseUrl);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    for (const name of SINGLE_VALUED) {
      const values = headerValues(req, name);
      if (values.length > 1) headers[name] = values;
    }
    headers[FORWARD_HEADER] = this.#key.toString();
    const chain = req.headers['x-forwarded-for'];
    headers['x-forwarded-for'] = chain ? `${String(chain)}, ${ip}` : ip;
    const secure = target.protocol === 'https:';
    return new Promise<IncomingMessage>((resolve, reject) => {
      const out = (secure ? httpsRequest : httpRequest)(target, {
        method: req.method,
        headers,
        agent: secure ? this.#https : this.#http,
        timeout: 30_000,
      });
      out.once('response', resolve);
      out.once('timeout', () => out.destroy(new Error('timed out')));
      out.once('error', reject);
      req.pipe(out);
    }).catch((err: unknown) => {
      log.warn({ target: target.origin, err: (err as Error).message }, 'forwarding to a node failed');
      throw new ApiError(
        'ENGINE_UNAVAILABLE',
        'The node holding this session does not answer; retry in a few seconds',
        { 'Retry-After': '2' },
      );
    });
  }

  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}

/** Writes the holder's answer: its status and headers (less hop-by-hop ones), its body streamed. */
function answer(
  upstream: IncomingMessage,
  res: ServerResponse,
  via: string,
  streams: Set<ServerResponse>,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(upstream.headers))
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  headers[`${NODE_HEADER}-via`] = via;
  const stream = String(upstream.headers['content-type']).startsWith('text/event-stream');
  if (stream) headers['connection'] = 'close'; // as the holder's own: the socket goes with the stream
  res.writeHead(upstream.statusCode ?? 502, headers);
  if (stream) {
    streams.add(res);
    res.once('close', () => streams.delete(res));
  }
  return new Promise<void>((resolve) => {
    upstream.pipe(res);
    upstream.once('end', resolve);
    upstream.once('error', () => {
      res.destroy(); // the holder went away mid-answer
      resolve();
    });
    res.once('close', () => {
      // the caller went away first (an event stream's reader, an aborted download): the holder's
      // answer is dropped too, so it stops writing and frees what the call held there
      if (!upstream.complete) upstream.destroy();
      resolve();
    });
  });
}
