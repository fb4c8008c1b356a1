/**
 * The forwarding fast path: a session call for a session another node holds, whose holder this
 * node already knows (the owner cache), is piped to the holder straight from the HTTP server's
 * request handler, before Fastify parses, routes or runs hooks for it: forwarding then costs about
 * what a bare proxy costs (bench:cluster measures CPU per call on each node). Everything else (the
 * first call for a session, calls from other nodes, sessions held here, CORS preflights) goes to
 * Fastify, whose first hook forwards the same way (routes/session-scope.ts). It hooks raw HTTP
 * through Fastify's `serverFactory` option: the server is ours, Fastify's handler runs behind it.
 */
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { Cluster } from './cluster.js';
import { headerValues } from '../single-value.js';
import { parseSessionCall } from '../routes/session-paths.js';
import { SESSION_ID_RE } from '../sessions/session-registry.js';
import { FORWARD_HEADER } from './forwarder.js';

const METHODS = new Set(['POST', 'PATCH', 'DELETE']);

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** What the fast path needs of the cluster: the owner cache and the raw forward. */
export type FastPathCluster = Pick<Cluster, 'cachedOwner' | 'forwardRaw'>;

/** What Fastify passes a server factory: its options, timeouts filled in with its defaults. */
interface FactoryOptions {
  http?: ServerOptions | null;
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  maxRequestsPerSocket?: number;
}

/**
 * A Fastify `serverFactory`: an HTTP server that puts the fast path in front of Fastify's handler,
 * set up as Fastify sets up a server it makes itself (the `http` options and the timeouts).
 */
export function fastPathServerFactory(
  cluster: FastPathCluster,
  heldHere: (sessionId: string) => boolean,
  log: FastifyBaseLogger,
): (handler: Handler, opts: Record<string, unknown>) => Server {
  return (handler, opts) => {
    const o = opts as FactoryOptions;
    const server = createServer(o.http ?? {}, (req, res) => {
      const target = fastTarget(req, cluster, heldHere);
      if (target === undefined) return handler(req, res);
      void cluster.forwardRaw(req, res, target.sessionId, target.url, log);
    });
    if (o.keepAliveTimeout !== undefined) server.keepAliveTimeout = o.keepAliveTimeout;
    if (o.requestTimeout !== undefined) server.requestTimeout = o.requestTimeout;
    if (o.connectionTimeout !== undefined) server.setTimeout(o.connectionTimeout);
    if (o.maxRequestsPerSocket !== undefined && o.maxRequestsPerSocket > 0)
      server.maxRequestsPerSocket = o.maxRequestsPerSocket;
    return server;
  };
}

function fastTarget(
  req: IncomingMessage,
  cluster: FastPathCluster,
  heldHere: (sessionId: string) => boolean,
): { sessionId: string; url: string } | undefined {
  if (!METHODS.has(req.method ?? '') || headerValues(req, FORWARD_HEADER).length > 0) return undefined;
  const sessionId = parseSessionCall(req.url ?? '')?.sessionId;
  if (sessionId === undefined || !SESSION_ID_RE.test(sessionId) || heldHere(sessionId)) return undefined;
  const url = cluster.cachedOwner(sessionId);
  return url === undefined ? undefined : { sessionId, url };
}
