/** The demo page at `/` and the client bundle at `/sdk/mouthpiece.js`. */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync } from 'fastify';
import fastifyStatic from '@fastify/static';
import { ApiError } from '../errors.js';

const PUBLIC_DIR = fileURLToPath(new URL('../../public/', import.meta.url));
const SDK_FILE = fileURLToPath(new URL('../../../client/dist/mouthpiece.js', import.meta.url));

export const staticRoutes: FastifyPluginAsync = async (app) => {
  if (existsSync(PUBLIC_DIR)) {
    await app.register(fastifyStatic, {
      root: PUBLIC_DIR,
      prefix: '/',
      index: ['index.html'],
      wildcard: false,
    });
  }
  app.get('/sdk/mouthpiece.js', { schema: { hide: true } }, async (_req, reply) => {
    let body: Buffer;
    try {
      body = await readFile(SDK_FILE);
    } catch {
      throw new ApiError('NOT_FOUND', 'The client bundle is not built (npm run build)');
    }
    return reply
      .header('Content-Type', 'text/javascript; charset=utf-8')
      .header('Cache-Control', 'no-cache')
      .send(body);
  });
};
