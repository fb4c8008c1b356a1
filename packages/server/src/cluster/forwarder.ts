/**
 * Forwards a request to another node over HTTP and passes its answer back unchanged: status,
 * headers (less hop-by-hop ones) and body, streamed both ways (a say-audio upload is piped, not
 * buffered). Called from `onRequest` hooks, before Fastify reads the body. The request carries the
 * cluster key, so the receiving node serves it itself (it never forwards again) and does not count
 * it twice against rate limits. A node that does not answer is a 503 the caller may retry.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Pool, type Dispatcher } from 'undici';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

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

/** The key nodes prove membership with: derived from the shared JWT secret. */
export function clusterKey(jwtSecret: string): string {
  return createHmac('sha256', jwtSecret).update('mouthpiece cluster forward v1').digest('base64url');
}

export class Forwarder {
  readonly #key: Buffer;
  readonly #nodeId: string;
  readonly #pools = new Map<string, Pool>();

  constructor(key: string, nodeId: string) {
    this.#key = Buffer.from(key);
    this.#nodeId = nodeId;
  }

  /** True when the request came from another node of this cluster. */
  isForwarded(req: FastifyRequest): boolean {
    const v = req.headers[FORWARD_HEADER];
    if (typeof v !== 'string') return false;
    const b = Buffer.from(v);
    return b.length === this.#key.length && timingSafeEqual(b, this.#key);
  }

  /**
   * Sends `req` to `baseUrl` + its path and answers with what comes back. Resolves once the answer
   * is piped; rejects with a 503 ApiError (before anything was answered) when the node is unreachable.
   */
  async forward(req: FastifyRequest, reply: FastifyReply, baseUrl: string): Promise<void> {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    headers[FORWARD_HEADER] = this.#key.toString();
    const chain = req.headers['x-forwarded-for'];
    headers['x-forwarded-for'] = chain ? `${String(chain)}, ${req.ip}` : req.ip;
    const hasBody =
      req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    let upstream: Dispatcher.ResponseData;
    try {
      upstream = await this.#pool(baseUrl).request({
        path: req.raw.url ?? req.url,
        method: req.method as Dispatcher.HttpMethod,
        headers,
        body: hasBody ? req.raw : null,
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      });
    } catch (err) {
      req.log.warn({ target: baseUrl, err: (err as Error).message }, 'forwarding to a node failed');
      throw new ApiError(
        'ENGINE_UNAVAILABLE',
        'The node holding this session does not answer; retry in a few seconds',
        { 'Retry-After': '2' },
      );
    }
    const answer: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(upstream.headers))
      if (value !== undefined && !HOP_BY_HOP.has(name)) answer[name] = value;
    answer[`${NODE_HEADER}-via`] = this.#nodeId;
    reply.hijack();
    reply.raw.writeHead(upstream.statusCode, answer);
    try {
      await pipeline(upstream.body, reply.raw);
    } catch {
      reply.raw.destroy(); // the owner or the caller went away mid-answer
    }
  }

  /** One keep-alive connection pool per node. */
  #pool(baseUrl: string): Pool {
    let pool = this.#pools.get(baseUrl);
    if (!pool) {
      pool = new Pool(baseUrl, { connections: 128, keepAliveTimeout: 30_000 });
      this.#pools.set(baseUrl, pool);
    }
    return pool;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((p) => p.close()));
    this.#pools.clear();
  }
}
