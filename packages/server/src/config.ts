/**
 * The only file that reads `process.env`. Validated at start, frozen, passed to everything else.
 * Every variable is declared once in config/spec.ts (rules, default, meaning); config/env-reader.ts
 * reads them, config/checks.ts works out what depends on several, config/docs.ts makes the
 * README's table. Loading runs nothing: whether `turnserver` is installed is asked when
 * `turn.mode` is first read, and only if MOUTHPIECE_TURN is unset.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import {
  checkTurn,
  clientRenderKinds,
  clusterSettings,
  enginePortRange,
  iceDenyList,
  publicUrl as publicUrlOf,
  turnExternalIp,
  turnListenIp,
  turnTls,
  videoSize,
} from './config/checks.js';
import { ConfigError, readEnv, type Env } from './config/env-reader.js';
import { speechSettings } from './config/voices.js';
import type { RenderKind } from '@mouthpiece/engine/host';
import type { SpeechConfig } from '@mouthpiece/engine/config';

export { ConfigError } from './config/env-reader.js';
export { CONFIG_DOCS, configTable } from './config/docs.js';

export type TurnMode = 'managed' | 'external' | 'off';

/**
 * Speaking video sessions one core holds with no dropped frame: `npm run bench:density` on the
 * video path, vector, photo and video avatars alike (docs/benchmarks-changelog.md, "Density after issue
 * 29": 3 per engine process clean, 4 dropping frames). MOUTHPIECE_MAX_SESSIONS defaults to this × cores.
 */
export const VIDEO_SESSIONS_PER_CORE = 3;

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  jwtSecret: string | undefined;
  adminToken: string | undefined;
  /** Bearer token `/metrics` asks for (unset: the admin token; neither: `/metrics` is off). */
  metricsToken: string | undefined;
  /** Requests per second one client address may fail authentication before it gets 429s (0: off). */
  authFailuresPerSecond: number;
  idleTimeoutMs: number;
  maxSessionDurationMs: number;
  endedRetentionMs: number;
  maxSessions: number;
  maxAudioBytes: number;
  engineProcesses: number;
  /** Extra Node flags for engine processes (profiling). */
  engineNodeFlags: string[];
  /** The ports the engine's WebRTC peers bind (undefined: any). */
  enginePorts: { min: number; max: number } | undefined;
  avatarsDir: string | undefined;
  videoWidth: number;
  videoHeight: number;
  videoFps: number;
  /**
   * The avatar kinds browsers may draw themselves (MOUTHPIECE_CLIENT_RENDER): their packs are
   * served, their viewers without video get the animation stream (docs/design.md §13.7).
   */
  clientRenderKinds: readonly RenderKind[];
  turn: {
    mode: TurnMode;
    host: string;
    port: number;
    altPort: number | undefined;
    secret: string | undefined;
    minPort: number;
    maxPort: number;
    listenIp: string;
    /** coturn's `external-ip` (`public` or `public/private`) on 1:1 NAT. */
    externalIp: string | undefined;
    /** TURN over TLS (`turns:`): the port, and for managed coturn the PEM files. */
    tls: { port: number; cert: string | undefined; key: string | undefined } | undefined;
    allowLoopback: boolean;
  };
  /** CIDR blocks of ICE candidates viewers may not hand the engine (see docs/operations.md). */
  iceDeny: string[];
  /** Accept TCP candidates from viewers (the engine would open TCP connections to them). */
  iceAllowTcp: boolean;
  corsOrigins: string[] | '*';
  trustProxy: boolean;
  /** HTTPS served by the server itself (MOUTHPIECE_TLS_CERT/_KEY): the PEM texts, and their files
   * (watched for renewals: tls-files.ts). */
  tls: { cert: string; key: string; files: { cert: string; key: string } } | undefined;
  logLevel: string;
  /** How long the engine waits for the viewer's `ready` before playing anyway. */
  whepReadyTimeoutMs: number;
  /** Cluster mode (docs/cluster.md): set when MOUTHPIECE_REDIS_URL is. */
  cluster: { redisUrl: string; nodeId: string; nodeUrl: string } | undefined;
  /** Voice providers (their keys go to the engine processes only) and the voices file's voices. */
  speech: SpeechConfig;
}

/** What loading may ask of the machine (a test passes its own). */
export interface ConfigProbes {
  /** Whether coturn's `turnserver` is on the PATH (the default of MOUTHPIECE_TURN). */
  hasTurnserver: () => boolean;
}

export function loadConfig(
  env: Env = process.env,
  probes: ConfigProbes = { hasTurnserver },
): Readonly<Config> {
  const v = readEnv(env);
  const cores = availableParallelism();
  const pub = publicUrlOf(v);
  const size = videoSize(v);
  checkTurn(v);
  const turnHost = v.MOUTHPIECE_TURN_HOST || pub.host;
  const cors = v.MOUTHPIECE_CORS_ORIGINS.trim();
  const config: Config = {
    port: v.PORT,
    host: v.HOST,
    publicUrl: pub.url,
    dataDir: resolve(v.MOUTHPIECE_DATA_DIR),
    jwtSecret: v.MOUTHPIECE_JWT_SECRET,
    adminToken: v.MOUTHPIECE_ADMIN_TOKEN,
    metricsToken: v.MOUTHPIECE_METRICS_TOKEN,
    authFailuresPerSecond: v.MOUTHPIECE_AUTH_FAILURES_PER_SECOND,
    idleTimeoutMs: v.MOUTHPIECE_SESSION_IDLE_TIMEOUT_MS,
    maxSessionDurationMs: v.MOUTHPIECE_SESSION_MAX_DURATION_MS,
    endedRetentionMs: v.MOUTHPIECE_ENDED_RETENTION_MS,
    maxSessions: v.MOUTHPIECE_MAX_SESSIONS ?? VIDEO_SESSIONS_PER_CORE * cores,
    maxAudioBytes: v.MOUTHPIECE_MAX_AUDIO_BYTES,
    engineProcesses: v.MOUTHPIECE_ENGINE_PROCESSES ?? cores,
    engineNodeFlags: (v.MOUTHPIECE_ENGINE_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean),
    enginePorts: enginePortRange(v),
    avatarsDir: v.MOUTHPIECE_AVATARS_DIR ? resolve(v.MOUTHPIECE_AVATARS_DIR) : undefined,
    videoWidth: size.width,
    videoHeight: size.height,
    videoFps: v.MOUTHPIECE_VIDEO_FPS,
    clientRenderKinds: clientRenderKinds(v.MOUTHPIECE_CLIENT_RENDER),
    turn: turnSettings(v.MOUTHPIECE_TURN, probes, {
      host: turnHost,
      port: v.MOUTHPIECE_TURN_PORT,
      altPort: v.MOUTHPIECE_TURN_ALT_PORT,
      secret: v.MOUTHPIECE_TURN_SECRET,
      minPort: v.MOUTHPIECE_TURN_MIN_PORT,
      maxPort: v.MOUTHPIECE_TURN_MAX_PORT,
      listenIp: turnListenIp(v.MOUTHPIECE_TURN_LISTEN_IP, turnHost),
      externalIp: turnExternalIp(v.MOUTHPIECE_TURN_EXTERNAL_IP),
      tls: turnTls(v),
      allowLoopback: v.MOUTHPIECE_TURN_ALLOW_LOOPBACK,
    }),
    iceDeny: iceDenyList(v.MOUTHPIECE_ICE_DENY),
    iceAllowTcp: v.MOUTHPIECE_ICE_ALLOW_TCP,
    corsOrigins:
      cors === '*'
        ? '*'
        : cors
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
    trustProxy: v.MOUTHPIECE_TRUST_PROXY,
    tls: tlsSettings(v.MOUTHPIECE_TLS_CERT, v.MOUTHPIECE_TLS_KEY, Boolean(v.MOUTHPIECE_REDIS_URL)),
    logLevel: v.MOUTHPIECE_LOG_LEVEL,
    whepReadyTimeoutMs: v.MOUTHPIECE_WHEP_READY_TIMEOUT_MS,
    cluster: clusterSettings(v, pub.url),
    speech: speechSettings(v),
  };
  return Object.freeze(config);
}

/** Both files or neither; read now, so a wrong path stops the start naming the variable. */
function tlsSettings(cert: string | undefined, key: string | undefined, cluster: boolean): Config['tls'] {
  if (!cert && !key) return undefined;
  if (!cert || !key)
    throw new ConfigError(
      `MOUTHPIECE_TLS_CERT and MOUTHPIECE_TLS_KEY go together: set both to PEM files, or neither behind a TLS proxy (deploy/)`,
    );
  if (cluster)
    throw new ConfigError(
      'MOUTHPIECE_TLS_CERT is for a single node: in cluster mode the load balancer serves TLS (docs/cluster.md); unset MOUTHPIECE_TLS_CERT and MOUTHPIECE_TLS_KEY',
    );
  const read = (name: string, path: string): string => {
    try {
      return readFileSync(resolve(path), 'utf8');
    } catch (err) {
      throw new ConfigError(`${name}: cannot read "${path}" (${(err as Error).message}); give a PEM file`);
    }
  };
  return {
    cert: read('MOUTHPIECE_TLS_CERT', cert),
    key: read('MOUTHPIECE_TLS_KEY', key),
    files: { cert: resolve(cert), key: resolve(key) },
  };
}

/**
 * The TURN settings, frozen. With MOUTHPIECE_TURN unset, `mode` is worked out when first read
 * (managed if `turnserver` is installed, else off) and kept: loading runs nothing.
 */
function turnSettings(
  mode: TurnMode | undefined,
  probes: ConfigProbes,
  rest: Omit<Config['turn'], 'mode'>,
): Config['turn'] {
  let resolved = mode;
  const turn = { ...rest } as Config['turn'];
  Object.defineProperty(turn, 'mode', {
    enumerable: true,
    get: (): TurnMode => (resolved ??= probes.hasTurnserver() ? 'managed' : 'off'),
  });
  return turn;
}

function hasTurnserver(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v turnserver'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
