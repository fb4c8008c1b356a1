/**
 * Forwards a request to another node over HTTP and passes its answer back unchanged: status,
 * headers (less hop-by-hop ones) and body, streamed both ways (a say-audio upload is piped, not
 * buffered). Called from `onRequest` hooks, before Fastify reads the body. The request carries the
 * cluster key, so the receiving node serves it itself (it never forwards again) and does not count
 * it twice against rate limits. A node that does not answer is a 503 the caller may retry.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
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
  readonly #http = new HttpAgent({ keepAlive: true, maxSockets: 256 });
  readonly #https = new HttpsAgent({ keepAlive: true, maxSockets: 256 });

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
    const target = new URL(req.raw.url ?? req.url, baseUrl);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    headers[FORWARD_HEADER] = this.#key.toString();
    const chain = req.headers['x-forwarded-for'];
    headers['x-forwarded-for'] = chain ? `${String(chain)}, ${req.ip}` : req.ip;
    const secure = target.protocol === 'https:';
    const upstream = await new Promise<IncomingMessage>((resolve, reject) => {
      const out = (secure ? httpsRequest : httpRequest)(target, {
        method: req.method,
        headers,
        agent: secure ? this.#https : this.#http,
        timeout: 30_000,
      });
      out.once('response', resolve);
      out.once('timeout', () => out.destroy(new Error('timed out')));
      out.once('error', reject);
      req.raw.pipe(out);
    }).catch((err: unknown) => {
      req.log.warn({ target: target.origin, err: (err as Error).message }, 'forwarding to a node failed');
      throw new ApiError(
        'ENGINE_UNAVAILABLE',
        'The node holding this session does not answer; retry in a few seconds',
        { 'Retry-After': '2' },
      );
    });
    const answer: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(upstream.headers))
      if (value !== undefined && !HOP_BY_HOP.has(name)) answer[name] = value;
    answer[`${NODE_HEADER}-via`] = this.#nodeId;
    reply.hijack();
    reply.raw.writeHead(upstream.statusCode ?? 502, answer);
    await new Promise<void>((resolve) => {
      upstream.pipe(reply.raw);
      upstream.once('end', resolve);
      upstream.once('error', () => {
        reply.raw.destroy();
        resolve();
      });
    });
  }

  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}
