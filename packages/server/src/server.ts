/**
 * Starts the whole service: SQLite stores, the JWT secret, managed TURN, the engine, the app.
 * Sessions left active by a previous run are ended (`server_restart`). close() is idempotent.
 * One logger serves the app, coturn's supervisor and the engine pool; warnings found while
 * starting are logged only after `onListening` (the CLI prints where the service is first).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server as HttpsServer } from 'node:https';
import { join } from 'node:path';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { createEnginePool, type EngineHost } from '@mouthpiece/engine/host';
import { EndReason } from '@mouthpiece/protocol';
import { buildApp, loggerOptions } from './app.js';
import { systemClock } from './clock.js';
import type { Config } from './config.js';
import { checkLocalVoices } from './config/voices.js';
import { openClusterNode } from './cluster/node-start.js';
import { StorageBusy } from './storage/errors.js';
import { openSqliteStores } from './storage/sqlite/index.js';
import type { Stores } from './storage/ports.js';
import { reloadTlsOnChange } from './tls-files.js';
import { startManagedTurn, type ManagedTurn } from './turn/coturn.js';
import { relayCapacity, type TurnSettings } from './turn/credentials.js';
import { uploadedAvatarsDir } from './avatars/uploaded-avatars.js';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

export interface StartOptions {
  /** The media engine (default: the engine process pool); tests pass a fake. */
  engine?: EngineHost;
  /** Called once the service listens, before the warnings found while starting are logged. */
  onListening?: (info: {
    url: string;
    dataDir: string;
    turn: TurnSettings['mode'];
    /** Managed coturn's relay range and how many viewers it relays (relayCapacity). */
    relay?: string;
    /** The ports TURN really listens on (empty when off). */
    turnPorts: readonly number[];
  }) => void;
}

function secretFile(dataDir: string, name: string): string {
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

function createEngine(
  config: Readonly<Config>,
  log: FastifyBaseLogger,
  turn: TurnSettings,
): Promise<EngineHost> {
  const { listenIp, minPort, maxPort } = config.turn;
  return createEnginePool({
    ice: {
      deny: config.iceDeny,
      allowTcp: config.iceAllowTcp,
      // our own relay: its candidates are fine even where its address is on the deny list
      relays: turn.mode === 'managed' ? [{ ip: listenIp, minPort, maxPort }] : [],
    },
    ...(config.enginePorts ? { portRange: config.enginePorts } : {}),
    logger: log.child({ component: 'engine' }),
    processes: config.engineProcesses,
    execArgv: config.engineNodeFlags,
    videoWidth: config.videoWidth,
    videoHeight: config.videoHeight,
    fps: config.videoFps,
    clientRenderKinds: config.clientRenderKinds,
    // uploaded avatars last: an upload never takes a built-in's or an operator pack's id
    avatarsDirs: [...(config.avatarsDir ? [config.avatarsDir] : []), uploadedAvatarsDir(config)],
    readyTimeoutMs: config.whepReadyTimeoutMs,
    speech: config.speech,
  });
}

const isLoopbackHost = (h: string): boolean => h === 'localhost' || h.startsWith('127.') || h === '::1';

/** The certificate and key managed coturn serves `turns:` with (checked when the config loaded). */
function tlsFiles(
  tls: Readonly<Config>['turn']['tls'],
): { port: number; cert: string; key: string } | undefined {
  return tls?.cert && tls.key ? { port: tls.port, cert: tls.cert, key: tls.key } : undefined;
}

/** Marks the previous run's sessions ended; waits up to 30 s for a database another process locked. */
async function endPreviousRun(stores: Stores, log: FastifyBaseLogger): Promise<number> {
  const deadline = Date.now() + 30_000;
  for (let warned = false; ; warned = true) {
    try {
      return await stores.sessions.endAllActive(EndReason.SERVER_RESTART, Date.now());
    } catch (err) {
      if (!(err instanceof StorageBusy) || Date.now() > deadline) {
        await stores.close();
        throw err;
      }
      if (!warned) log.warn('the database is locked by another process; waiting up to 30 s for it');
    }
  }
}

export async function startServer(config: Readonly<Config>, opts: StartOptions = {}): Promise<RunningServer> {
  // synchronous, so log lines and the CLI's banner reach stdout in the order they were written
  const log: FastifyBaseLogger = pino(
    loggerOptions(config.logLevel) as pino.LoggerOptions,
    pino.destination({ dest: 1, sync: true }),
  );
  const warnings: Array<[object, string]> = [];
  await checkLocalVoices(config.speech); // before anything is opened: a bad model stops start-up
  mkdirSync(config.dataDir, { recursive: true });
  mkdirSync(uploadedAvatarsDir(config), { recursive: true });
  // cluster mode (docs/cluster.md): Redis instead of SQLite, a JWT secret shared by the nodes
  const node = config.cluster ? await openClusterNode(config.cluster, config, log, systemClock) : undefined;
  const stores = node?.stores ?? openSqliteStores(join(config.dataDir, 'mouthpiece.db'));
  const ended = await endPreviousRun(stores, log);
  const jwtSecret = node
    ? await node.jwtSecret(config.jwtSecret)
    : (config.jwtSecret ?? secretFile(config.dataDir, 'jwt-secret'));
  let managed: ManagedTurn | undefined;
  let engine: EngineHost | undefined;
  let app: FastifyInstance | undefined;
  let stopTlsWatch: (() => void) | undefined;
  const cleanup = async (): Promise<void> => {
    stopTlsWatch?.();
    const cluster = app?.ctx.cluster;
    await cluster?.leave(); // first: other nodes stop placing creates here while it drains
    await app?.close();
    await cluster?.close();
    await engine?.close();
    await managed?.close();
    await stores.close();
  };
  try {
    let turn: TurnSettings = { mode: 'off', host: config.turn.host, ports: [], secret: '' };
    const tls = config.turn.tls;
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
        externalIp: config.turn.externalIp,
        tls: tlsFiles(config.turn.tls),
        realm: 'mouthpiece',
        secret,
        allowLoopback: config.turn.allowLoopback,
        logger: log.child({ component: 'turn' }),
      });
      turn = { mode: 'managed', host: config.turn.host, ports: managed.ports, tlsPort: tls?.port, secret };
    } else if (config.turn.mode === 'external') {
      turn = {
        mode: 'external',
        host: config.turn.host,
        ports: [config.turn.altPort, config.turn.port].filter((p): p is number => !!p),
        tlsPort: tls?.port,
        secret: config.turn.secret ?? '',
      };
    }
    engine = opts.engine ?? (await createEngine(config, log, turn));
    // the composition root (app.ts): registry → cluster view → app, over the stores above
    app = await buildApp({
      config,
      stores,
      engine,
      clock: systemClock,
      jwtSecret,
      turn,
      loggerInstance: log,
      ...(node ? { cluster: node.plan(jwtSecret) } : {}),
    });
    if (ended > 0)
      log.info({ sessions: ended }, 'sessions of the previous run marked ended (server_restart)');
    if (config.turn.mode === 'off')
      warnings.push([
        {},
        'TURN is off (coturn is not installed, or MOUTHPIECE_TURN=off): viewers behind strict NATs cannot connect',
      ]);
    const relay =
      turn.mode === 'managed' ? relayCapacity(config.turn.minPort, config.turn.maxPort, turn) : undefined;
    if (relay && relay.viewers < config.maxSessions)
      warnings.push([
        { relayPorts: relay.ports, viewers: relay.viewers, maxSessions: config.maxSessions },
        'the TURN relay range is smaller than MOUTHPIECE_MAX_SESSIONS viewers need: widen MOUTHPIECE_TURN_MIN_PORT..MOUTHPIECE_TURN_MAX_PORT',
      ]);
    if (turn.mode === 'managed' && config.turn.listenIp.startsWith('127.') && !isLoopbackHost(turn.host))
      warnings.push([
        { listenIp: config.turn.listenIp, host: turn.host },
        'managed coturn listens on loopback only, but browsers are sent to the TURN host: set MOUTHPIECE_TURN_LISTEN_IP (0.0.0.0 or the public interface)',
      ]);
    if (config.turn.mode === 'managed' && ![80, 443].includes(config.turn.port))
      warnings.push([
        { port: config.turn.port },
        'TURN listens on a non-standard port; clients that build TURN URLs from turn.url by the spec need 80/443',
      ]);
    const publicUrl = new URL(config.publicUrl);
    if (publicUrl.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(publicUrl.hostname))
      warnings.push([
        { publicUrl: config.publicUrl },
        'public URL is http: pages served over https cannot use its whepUrl',
      ]);
    await app.listen({
      port: config.port,
      host: config.host,
      listenTextResolver: (address) => `HTTP server listening at ${address}`,
    });
    // a renewed certificate is served from the next handshake on (tls-files.ts)
    if (config.tls) stopTlsWatch = reloadTlsOnChange(app.server as HttpsServer, config.tls.files, log);
    // heartbeat once listening: other nodes place creates and forward calls here from now on
    await app.ctx.cluster?.start();
    if (config.cluster)
      log.info({ nodeId: config.cluster.nodeId, nodeUrl: config.cluster.nodeUrl }, 'cluster node joined');
    log.info({ url: config.publicUrl, turn: turn.mode, dataDir: config.dataDir }, 'mouthpiece listening');
    opts.onListening?.({
      url: `${config.publicUrl}/`,
      dataDir: config.dataDir,
      turn: turn.mode,
      ...(relay ? { relay: relay.text } : {}),
      turnPorts: turn.ports,
    });
    for (const [fields, msg] of warnings) log.warn(fields, msg);
  } catch (err) {
    await cleanup().catch(() => undefined);
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  let closing: Promise<void> | undefined;
  return {
    app,
    url: `${config.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    close: () => (closing ??= cleanup()),
  };
}
