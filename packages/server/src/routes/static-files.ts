/** The demo page at `/` and the client bundle at `/sdk/mouthpiece.js`. */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync } from 'fastify';
import fastifyStatic from '@fastify/static';
import { ApiError } from '../errors.js';

const PUBLIC_DIR = fileURLToPath(new URL('../../public/', import.meta.url));

/**
 * The SDK's <script> build, found through the package (@mouthpiece/client's `./script` export), so
 * it is found wherever npm installed it. Resolved per request: a bundle built after start is served.
 */
function sdkFile(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('@mouthpiece/client/script');
  } catch {
    return undefined;
  }
}

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
    const file = sdkFile();
    try {
      if (file === undefined) throw new Error('not found');
      body = await readFile(file);
    } catch {
      throw new ApiError(
        'NOT_FOUND',
        'The client bundle is not built or @mouthpiece/client is not installed (npm run build, or npm install @mouthpiece/client)',
      );
    }
    return reply
      .header('Content-Type', 'text/javascript; charset=utf-8')
      .header('Cache-Control', 'no-cache')
      .send(body);
  });
};
