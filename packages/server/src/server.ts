/**
 * Starts the whole service: SQLite stores, the JWT secret, managed TURN, the engine, the app.
 * Sessions left active by a previous run are ended (`server_restart`). close() is idempotent.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createEnginePool, type EngineHost } from '@mouthpiece/engine/host';
import { EndReason } from '@mouthpiece/protocol';
import { buildApp } from './app.js';
import { systemClock } from './clock.js';
import type { Config } from './config.js';
import { openSqliteStores } from './storage/sqlite/index.js';
import { startManagedTurn, type ManagedTurn } from './turn/coturn.js';
import type { TurnSettings } from './turn/credentials.js';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

function secretFile(dataDir: string, name: string): string {
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

async function createEngine(config: Readonly<Config>): Promise<EngineHost> {
  if (config.engine === 'fake') {
    const { FakeEngineHost } = await import('@mouthpiece/engine/testing');
    return new FakeEngineHost();
  }
  return createEnginePool({
    processes: config.engineProcesses,
    execArgv: config.engineNodeFlags,
    videoWidth: config.videoWidth,
    videoHeight: config.videoHeight,
    fps: config.videoFps,
    avatarsDirs: config.avatarsDir ? [config.avatarsDir] : [],
    readyTimeoutMs: config.whepReadyTimeoutMs,
  });
}

export async function startServer(config: Readonly<Config>): Promise<RunningServer> {
  mkdirSync(config.dataDir, { recursive: true });
  const stores = openSqliteStores(join(config.dataDir, 'mouthpiece.db'));
  const ended = stores.sessions.endAllActive(EndReason.SERVER_RESTART, Date.now());
  const jwtSecret = config.jwtSecret ?? secretFile(config.dataDir, 'jwt-secret');
  let managed: ManagedTurn | undefined;
  let engine: EngineHost | undefined;
  let app: FastifyInstance | undefined;
  const cleanup = async (): Promise<void> => {
    await app?.close();
    await engine?.close();
    await managed?.close();
    stores.close();
  };
  try {
    let turn: TurnSettings = { mode: 'off', host: config.turn.host, ports: [], secret: '' };
    if (config.turn.mode === 'managed') {
      const secret = config.turn.secret ?? secretFile(config.dataDir, 'turn-secret');
      managed = await startManagedTurn({
        dataDir: config.dataDir,
        listeningIp: config.turn.listenIp,
        relayIp: config.turn.listenIp,
        port: config.turn.port,
        altPort: config.turn.altPort,
        minPort: config.turn.minPort,
        maxPort: config.turn.maxPort,
        realm: 'mouthpiece',
        secret,
        allowLoopback: config.turn.allowLoopback,
        logger: { info: () => undefined, warn: console.warn, error: console.error },
      });
      turn = { mode: 'managed', host: config.turn.host, ports: managed.ports, secret };
    } else if (config.turn.mode === 'external') {
      turn = {
        mode: 'external',
        host: config.turn.host,
        ports: [config.turn.altPort, config.turn.port].filter((p): p is number => !!p),
        secret: config.turn.secret ?? '',
      };
    }
    engine = await createEngine(config);
    app = await buildApp({ config, stores, engine, clock: systemClock, jwtSecret, turn });
    if (ended > 0)
      app.log.info({ sessions: ended }, 'sessions of the previous run marked ended (server_restart)');
    if (config.turn.mode === 'managed' && ![80, 443].includes(config.turn.port)) {
      app.log.warn(
        { port: config.turn.port },
        'TURN listens on a non-standard port; clients that build TURN URLs from turn.url by the spec need 80/443',
      );
    }
    const publicUrl = new URL(config.publicUrl);
    if (publicUrl.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(publicUrl.hostname)) {
      app.log.warn(
        { publicUrl: config.publicUrl },
        'public URL is http: pages served over https cannot use its whepUrl',
      );
    }
    const url = await app.listen({ port: config.port, host: config.host });
    app.log.info({ url, engine: config.engine, turn: turn.mode }, 'mouthpiece listening');
  } catch (err) {
    await cleanup().catch(() => undefined);
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  let closing: Promise<void> | undefined;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    close: () => (closing ??= cleanup()),
  };
}
