/**
 * The only file that reads `process.env`. Validated at start, frozen, passed to everything else.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import {
  DEFAULT_ENDED_RETENTION_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_AUDIO_BYTES,
  DEFAULT_MAX_SESSION_DURATION_MS,
} from '@mouthpiece/protocol';
import { DEFAULT_ICE_DENY, type SpeechConfig } from '@mouthpiece/engine/host';
import { VOICE_CONFIG_DOCS, speechConfig } from './config-voices.js';

export type TurnMode = 'managed' | 'external' | 'off';

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  jwtSecret: string | undefined;
  adminToken: string | undefined;
  /** Bearer token `/metrics` asks for (unset: open, but never to other origins' pages). */
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
  avatarsDir: string | undefined;
  videoWidth: number;
  videoHeight: number;
  videoFps: number;
  turn: {
    mode: TurnMode;
    host: string;
    port: number;
    altPort: number | undefined;
    secret: string | undefined;
    minPort: number;
    maxPort: number;
    listenIp: string;
    allowLoopback: boolean;
  };
  /** CIDR blocks of ICE candidates viewers may not hand the engine (see docs/operations.md). */
  iceDeny: string[];
  /** Accept TCP candidates from viewers (the engine would open TCP connections to them). */
  iceAllowTcp: boolean;
  corsOrigins: string[] | '*';
  trustProxy: boolean;
  logLevel: string;
  /** How long the engine waits for the viewer's `ready` before playing anyway. */
  whepReadyTimeoutMs: number;
  /** Cluster mode (docs/cluster.md): set when MOUTHPIECE_REDIS_URL is. */
  cluster: { redisUrl: string; nodeId: string; nodeUrl: string } | undefined;
  /** Voice providers (their keys go to the engine processes only) and the voices file's voices. */
  speech: SpeechConfig;
}

/** Every variable, its default and meaning (rendered into the README's configuration table). */
export const CONFIG_DOCS: ReadonlyArray<{ name: string; default: string; meaning: string }> = [
  { name: 'PORT', default: '8080', meaning: 'HTTP port' },
  { name: 'HOST', default: '0.0.0.0', meaning: 'address to listen on' },
  {
    name: 'MOUTHPIECE_PUBLIC_URL',
    default: 'http://localhost:$PORT',
    meaning: 'public base URL used to build `whepUrl` (use https in production)',
  },
  {
    name: 'MOUTHPIECE_DATA_DIR',
    default: './data',
    meaning: 'SQLite database, generated JWT secret, coturn files',
  },
  {
    name: 'MOUTHPIECE_JWT_SECRET',
    default: 'generated once into the data dir',
    meaning: 'HS256 secret for session tokens (≥ 32 characters)',
  },
  {
    name: 'MOUTHPIECE_ADMIN_TOKEN',
    default: 'unset (Bearer admin disabled)',
    meaning: 'Bearer token for `/admin/v1` (≥ 32 characters)',
  },
  {
    name: 'MOUTHPIECE_METRICS_TOKEN',
    default: 'unset (`/metrics` open; no CORS)',
    meaning: '`/metrics` asks for `Authorization: Bearer <this>` (≥ 16 characters)',
  },
  {
    name: 'MOUTHPIECE_AUTH_FAILURES_PER_SECOND',
    default: '5',
    meaning:
      'failed authentications one client address may make per second (bursts of twice that) before its requests get 429; 0 turns it off',
  },
  {
    name: 'MOUTHPIECE_SESSION_IDLE_TIMEOUT_MS',
    default: '30000',
    meaning: 'a session with no call for this long ends (`idle_timeout`)',
  },
  {
    name: 'MOUTHPIECE_SESSION_MAX_DURATION_MS',
    default: '3600000',
    meaning: 'default max session duration for credentials without their own',
  },
  {
    name: 'MOUTHPIECE_ENDED_RETENTION_MS',
    default: '3600000',
    meaning: 'ended sessions answer 410 for this long, then 404',
  },
  {
    name: 'MOUTHPIECE_MAX_SESSIONS',
    default: '6 × cores',
    meaning: 'active sessions per server; over it create answers 503',
  },
  { name: 'MOUTHPIECE_MAX_AUDIO_BYTES', default: '10485760', meaning: 'say-audio upload cap (413 above)' },
  { name: 'MOUTHPIECE_ENGINE_PROCESSES', default: 'cores', meaning: 'number of engine child processes' },
  {
    name: 'MOUTHPIECE_ENGINE_NODE_FLAGS',
    default: 'unset',
    meaning:
      'extra Node flags for engine processes, space-separated (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile one)',
  },
  {
    name: 'MOUTHPIECE_AVATARS_DIR',
    default: 'unset',
    meaning: 'folder of extra avatar packs (see docs/avatars.md)',
  },
  { name: 'MOUTHPIECE_VIDEO_SIZE', default: '512x512', meaning: 'output video size' },
  { name: 'MOUTHPIECE_VIDEO_FPS', default: '25', meaning: 'output frame rate' },
  {
    name: 'MOUTHPIECE_TURN',
    default: 'managed if `turnserver` is installed, else off',
    meaning: '`managed` (spawn coturn), `external`, or `off`',
  },
  {
    name: 'MOUTHPIECE_TURN_HOST',
    default: 'host of the public URL',
    meaning: 'TURN host returned as `turn.url`',
  },
  {
    name: 'MOUTHPIECE_TURN_PORT',
    default: '3478',
    meaning: 'TURN listening port (80 for clients that build URLs by the spec)',
  },
  { name: 'MOUTHPIECE_TURN_ALT_PORT', default: 'unset', meaning: 'second TURN port (e.g. 443)' },
  {
    name: 'MOUTHPIECE_TURN_SECRET',
    default: 'generated (managed)',
    meaning: 'TURN REST API shared secret (required for external)',
  },
  {
    name: 'MOUTHPIECE_TURN_MIN_PORT / _MAX_PORT',
    default: '49160 / 49200',
    meaning: 'relay port range of managed coturn',
  },
  {
    name: 'MOUTHPIECE_TURN_LISTEN_IP',
    default: '127.0.0.1',
    meaning: 'address managed coturn listens and relays on',
  },
  {
    name: 'MOUTHPIECE_TURN_ALLOW_LOOPBACK',
    default: '0',
    meaning: '1 lets coturn relay to loopback peers (tests only)',
  },
  {
    name: 'MOUTHPIECE_ICE_DENY',
    default: 'loopback, link-local, multicast, unspecified',
    meaning:
      'comma list of CIDR blocks whose ICE candidates viewers may not give the engine (`none` allows all); private ranges are allowed for LAN viewers',
  },
  {
    name: 'MOUTHPIECE_ICE_ALLOW_TCP',
    default: '0',
    meaning: '1 accepts TCP candidates from viewers (the engine then opens TCP connections to them)',
  },
  {
    name: 'MOUTHPIECE_CORS_ORIGINS',
    default: '*',
    meaning: 'comma list of origins allowed on create and catalog routes',
  },
  { name: 'MOUTHPIECE_TRUST_PROXY', default: '0', meaning: '1 when behind a TLS-terminating proxy' },
  { name: 'MOUTHPIECE_LOG_LEVEL', default: 'info', meaning: 'debug, info, warn or error' },
  {
    name: 'MOUTHPIECE_WHEP_READY_TIMEOUT_MS',
    default: '5000',
    meaning: "how long speech waits for the viewer's `ready` before playing",
  },
  {
    name: 'MOUTHPIECE_REDIS_URL',
    default: 'unset (single node, SQLite)',
    meaning:
      'cluster mode: `redis://host:6379` holds credentials, sessions and limits for every node (docs/cluster.md)',
  },
  {
    name: 'MOUTHPIECE_NODE_ID',
    default: 'generated at start',
    meaning: "cluster mode: this node's name (letters, digits, `.`, `_`, `-`)",
  },
  {
    name: 'MOUTHPIECE_NODE_URL',
    default: 'the public URL',
    meaning: 'cluster mode: the base URL other nodes reach this node on (calls are forwarded there)',
  },
  ...VOICE_CONFIG_DOCS,
];

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const int = (name: string, def: number, min = 0, max = Number.MAX_SAFE_INTEGER): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return def;
    const v = Number(raw);
    if (!Number.isInteger(v) || v < min || v > max) {
      throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
    }
    return v;
  };
  const bool = (name: string): boolean => {
    const raw = (env[name] ?? '').toLowerCase();
    if (['', '0', 'false', 'no'].includes(raw)) return false;
    if (['1', 'true', 'yes'].includes(raw)) return true;
    throw new ConfigError(`${name} must be 0 or 1, got "${env[name]}"`);
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], def: T): T => {
    const raw = env[name];
    if (raw === undefined || raw === '') return def;
    if (!(allowed as readonly string[]).includes(raw)) {
      throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
    }
    return raw as T;
  };

  const cores = availableParallelism();
  const port = int('PORT', 8080, 0, 65535);
  const publicUrl = (env['MOUTHPIECE_PUBLIC_URL'] ?? `http://localhost:${port}`).replace(/\/+$/, '');
  let publicHost: string;
  try {
    publicHost = new URL(publicUrl).hostname;
  } catch {
    throw new ConfigError(`MOUTHPIECE_PUBLIC_URL must be an absolute URL, got "${publicUrl}"`);
  }
  const size = env['MOUTHPIECE_VIDEO_SIZE'] ?? '512x512';
  const m = /^(\d{2,4})x(\d{2,4})$/.exec(size);
  if (!m) throw new ConfigError(`MOUTHPIECE_VIDEO_SIZE must look like 512x512, got "${size}"`);
  const videoWidth = Number(m[1]);
  const videoHeight = Number(m[2]);
  if (videoWidth % 2 || videoHeight % 2 || videoWidth < 64 || videoHeight < 64) {
    throw new ConfigError(`MOUTHPIECE_VIDEO_SIZE must be even and at least 64x64, got "${size}"`);
  }
  const jwtSecret = env['MOUTHPIECE_JWT_SECRET'] || undefined;
  const adminToken = env['MOUTHPIECE_ADMIN_TOKEN'] || undefined;
  if (adminToken !== undefined && adminToken.length < 32) {
    throw new ConfigError(
      'MOUTHPIECE_ADMIN_TOKEN must be at least 32 characters (for example: openssl rand -base64 32)',
    );
  }
  const metricsToken = env['MOUTHPIECE_METRICS_TOKEN'] || undefined;
  if (metricsToken !== undefined && metricsToken.length < 16) {
    throw new ConfigError('MOUTHPIECE_METRICS_TOKEN must be at least 16 characters');
  }
  if (jwtSecret !== undefined && jwtSecret.length < 32) {
    throw new ConfigError('MOUTHPIECE_JWT_SECRET must be at least 32 characters');
  }
  const turnMode = oneOf<TurnMode>(
    'MOUTHPIECE_TURN',
    ['managed', 'external', 'off'],
    hasTurnserver() ? 'managed' : 'off',
  );
  const turnSecret = env['MOUTHPIECE_TURN_SECRET'] || undefined;
  if (turnMode === 'external' && (!turnSecret || !env['MOUTHPIECE_TURN_HOST'])) {
    throw new ConfigError('MOUTHPIECE_TURN=external needs MOUTHPIECE_TURN_HOST and MOUTHPIECE_TURN_SECRET');
  }
  const altPortRaw = env['MOUTHPIECE_TURN_ALT_PORT'];
  const cors = (env['MOUTHPIECE_CORS_ORIGINS'] ?? '*').trim();
  const logLevel = oneOf(
    'MOUTHPIECE_LOG_LEVEL',
    ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'],
    'info',
  );

  const config: Config = {
    port,
    host: env['HOST'] || '0.0.0.0',
    publicUrl,
    dataDir: resolve(env['MOUTHPIECE_DATA_DIR'] || './data'),
    jwtSecret,
    adminToken,
    metricsToken,
    authFailuresPerSecond: int('MOUTHPIECE_AUTH_FAILURES_PER_SECOND', 5, 0, 1_000_000),
    idleTimeoutMs: int('MOUTHPIECE_SESSION_IDLE_TIMEOUT_MS', DEFAULT_IDLE_TIMEOUT_MS, 100),
    // at most 24 days: a longer timer fires at once in Node (it is kept in a 32-bit integer)
    maxSessionDurationMs: int(
      'MOUTHPIECE_SESSION_MAX_DURATION_MS',
      DEFAULT_MAX_SESSION_DURATION_MS,
      1000,
      24 * 86_400_000,
    ),
    endedRetentionMs: int('MOUTHPIECE_ENDED_RETENTION_MS', DEFAULT_ENDED_RETENTION_MS, 0),
    maxSessions: int('MOUTHPIECE_MAX_SESSIONS', 6 * cores, 1),
    maxAudioBytes: int('MOUTHPIECE_MAX_AUDIO_BYTES', DEFAULT_MAX_AUDIO_BYTES, 1024),
    engineProcesses: int('MOUTHPIECE_ENGINE_PROCESSES', cores, 1, 64),
    engineNodeFlags: (env['MOUTHPIECE_ENGINE_NODE_FLAGS'] ?? '').split(/\s+/).filter(Boolean),
    avatarsDir: env['MOUTHPIECE_AVATARS_DIR'] ? resolve(env['MOUTHPIECE_AVATARS_DIR']) : undefined,
    videoWidth,
    videoHeight,
    videoFps: int('MOUTHPIECE_VIDEO_FPS', 25, 1, 60),
    turn: {
      mode: turnMode,
      host: env['MOUTHPIECE_TURN_HOST'] || publicHost,
      port: int('MOUTHPIECE_TURN_PORT', 3478, 1, 65535),
      altPort: altPortRaw ? int('MOUTHPIECE_TURN_ALT_PORT', 0, 1, 65535) : undefined,
      secret: turnSecret,
      minPort: int('MOUTHPIECE_TURN_MIN_PORT', 49160, 1024, 65535),
      maxPort: int('MOUTHPIECE_TURN_MAX_PORT', 49200, 1024, 65535),
      listenIp: env['MOUTHPIECE_TURN_LISTEN_IP'] || '127.0.0.1',
      allowLoopback: bool('MOUTHPIECE_TURN_ALLOW_LOOPBACK'),
    },
    iceDeny: cidrList('MOUTHPIECE_ICE_DENY', env['MOUTHPIECE_ICE_DENY']),
    iceAllowTcp: bool('MOUTHPIECE_ICE_ALLOW_TCP'),
    corsOrigins:
      cors === '*'
        ? '*'
        : cors
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
    trustProxy: bool('MOUTHPIECE_TRUST_PROXY'),
    logLevel,
    whepReadyTimeoutMs: int('MOUTHPIECE_WHEP_READY_TIMEOUT_MS', 5000, 0),
    cluster: clusterConfig(env, publicUrl),
    speech: speechConfig(env, int, (m) => new ConfigError(m)),
  };
  if (config.turn.minPort > config.turn.maxPort) {
    throw new ConfigError('MOUTHPIECE_TURN_MIN_PORT must not exceed MOUTHPIECE_TURN_MAX_PORT');
  }
  return Object.freeze(config);
}

/** Cluster mode's settings, or undefined when MOUTHPIECE_REDIS_URL is unset (single node). */
function clusterConfig(env: Env, publicUrl: string): Config['cluster'] {
  const redisUrl = env['MOUTHPIECE_REDIS_URL']?.trim();
  const nodeIdRaw = env['MOUTHPIECE_NODE_ID']?.trim();
  const nodeUrlRaw = env['MOUTHPIECE_NODE_URL']?.trim();
  if (!redisUrl) {
    if (nodeIdRaw || nodeUrlRaw)
      throw new ConfigError(
        'MOUTHPIECE_NODE_ID and MOUTHPIECE_NODE_URL need MOUTHPIECE_REDIS_URL (cluster mode)',
      );
    return undefined;
  }
  if (!/^rediss?:\/\/[^/\s]+/.test(redisUrl))
    throw new ConfigError(`MOUTHPIECE_REDIS_URL must look like redis://host:6379, got "${redisUrl}"`);
  const nodeId = nodeIdRaw || `node-${randomBytes(4).toString('hex')}`;
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(nodeId))
    throw new ConfigError(
      `MOUTHPIECE_NODE_ID must be 1-64 letters, digits, ".", "_" or "-", got "${nodeId}"`,
    );
  const nodeUrl = (nodeUrlRaw || publicUrl).replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(nodeUrl);
  } catch {
    throw new ConfigError(`MOUTHPIECE_NODE_URL must be an absolute URL, got "${nodeUrl}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ConfigError(`MOUTHPIECE_NODE_URL must be http or https, got "${nodeUrl}"`);
  return { redisUrl, nodeId, nodeUrl };
}
/** A comma list of CIDR blocks (default: the engine's safe deny list; `none`: nothing). */
function cidrList(name: string, raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [...DEFAULT_ICE_DENY];
  if (raw.trim().toLowerCase() === 'none') return [];
  return raw.split(',').map((part) => {
    const cidr = part.trim();
    const [net, bits] = cidr.split('/');
    const family = isIP(net ?? '');
    const max = family === 6 ? 128 : 32;
    if (family === 0 || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= max)))
      throw new ConfigError(`${name}: "${cidr}" is not a CIDR block like 127.0.0.0/8 or fe80::/10`);
    return bits === undefined ? `${net}/${max}` : cidr;
  });
}

function hasTurnserver(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v turnserver'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
