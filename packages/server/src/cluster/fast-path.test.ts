/**
 * The fast path is Fastify's server: built by its `serverFactory`, it pipes a call for a session
 * whose holder is known straight to the forward, and hands everything else to Fastify's handler,
 * on a server set up as Fastify would set up its own (timeouts, `http` options).
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import { fastPathServerFactory, type FastPathCluster } from './fast-path.js';
import { FORWARD_HEADER } from './forwarder.js';

const HELD_ELSEWHERE = 'A'.repeat(22);
const HELD_HERE = 'B'.repeat(22);
const UNKNOWN = 'C'.repeat(22);

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function start(): Promise<{ port: number; forwarded: string[] }> {
  const forwarded: string[] = [];
  const cluster: FastPathCluster = {
    cachedOwner: (id) => (id === HELD_ELSEWHERE || id === HELD_HERE ? 'http://holder.internal' : undefined),
    forwardRaw: (req, res, sessionId, url) => {
      forwarded.push(`${req.method} ${sessionId} ${url}`);
      res.writeHead(299).end('forwarded');
      return Promise.resolve();
    },
  };
  app = Fastify({
    http: { requireHostHeader: false },
    keepAliveTimeout: 12_345,
    serverFactory: fastPathServerFactory(cluster, (id) => id === HELD_HERE, pino({ level: 'silent' })),
  });
  app.all('/v1/avatar-session/:id/keep-alive', () => Promise.resolve('fastify'));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: (app.server.address() as AddressInfo).port, forwarded };
}

function call(
  port: number,
  method: string,
  id: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { port, host: '127.0.0.1', method, path: `/v1/avatar-session/${id}/keep-alive`, headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.once('error', reject);
    req.end();
  });
}

it('forwards a call for a session held elsewhere before Fastify sees it; the rest reach Fastify', async () => {
  const { port, forwarded } = await start();
  expect(await call(port, 'POST', HELD_ELSEWHERE)).toEqual({ status: 299, body: 'forwarded' });
  expect(forwarded).toEqual([`POST ${HELD_ELSEWHERE} http://holder.internal`]);
  // held here, holder unknown, a method no session call uses, a call another node forwarded
  expect(await call(port, 'POST', HELD_HERE)).toEqual({ status: 200, body: 'fastify' });
  expect(await call(port, 'POST', UNKNOWN)).toEqual({ status: 200, body: 'fastify' });
  expect(await call(port, 'GET', HELD_ELSEWHERE)).toEqual({ status: 200, body: 'fastify' });
  expect(await call(port, 'POST', HELD_ELSEWHERE, { [FORWARD_HEADER]: 'k' })).toEqual({
    status: 200,
    body: 'fastify',
  });
  expect(forwarded).toHaveLength(1);
});

it("sets the server up as Fastify sets up its own: its timeouts and the 'http' options", async () => {
  await start();
  expect(app!.server.keepAliveTimeout).toBe(12_345);
  expect(app!.server.requestTimeout).toBe(0); // Fastify's default
  expect((app!.server as unknown as { requireHostHeader: boolean }).requireHostHeader).toBe(false);
});
