/**
 * The forwarding fast path: a session call for a session another node holds, whose holder this
 * node already knows (the owner cache), is piped to the holder straight from the HTTP server's
 * request event, before Fastify parses, routes or runs hooks for it: forwarding then costs about
 * what a bare proxy costs (bench:cluster measures CPU per call on each node). Everything else (the
 * first call for a session, calls from other nodes, sessions held here, CORS preflights) takes the
 * normal route, whose first hook forwards the same way (routes/session-scope.ts).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { Cluster } from './cluster.js';
import { headerValues } from '../single-value.js';
import { parseSessionCall } from '../routes/session-paths.js';
import { SESSION_ID_RE } from '../sessions/session-registry.js';
import { FORWARD_HEADER } from './forwarder.js';

const METHODS = new Set(['POST', 'PATCH', 'DELETE']);

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Puts the fast path in front of the server's request handler (Fastify's). */
export function installFastPath(
  server: Server,
  cluster: Cluster,
  heldHere: (sessionId: string) => boolean,
  log: FastifyBaseLogger,
): void {
  const handlers = server.listeners('request') as Handler[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const target = fastTarget(req, cluster, heldHere);
    if (target === undefined) {
      for (const h of handlers) h(req, res);
      return;
    }
    void cluster.forwardRaw(req, res, target.sessionId, target.url, log);
  });
}

function fastTarget(
  req: IncomingMessage,
  cluster: Cluster,
  heldHere: (sessionId: string) => boolean,
): { sessionId: string; url: string } | undefined {
  if (!METHODS.has(req.method ?? '') || headerValues(req, FORWARD_HEADER).length > 0) return undefined;
  const sessionId = parseSessionCall(req.url ?? '')?.sessionId;
  if (sessionId === undefined || !SESSION_ID_RE.test(sessionId) || heldHere(sessionId)) return undefined;
  const url = cluster.cachedOwner(sessionId);
  return url === undefined ? undefined : { sessionId, url };
}
