/**
 * The `mouthpiece` command. Pure function of argv/env with injected output streams, so tests run
 * it in-process. Exit codes: 0 ok, 1 usage, 2 not found.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  DEFAULT_CREDENTIAL_RPS,
  DEFAULT_MAX_SESSIONS_PER_CREDENTIAL,
  DEFAULT_MAX_TEXT_LENGTH,
} from '@mouthpiece/protocol';
import { generateCredential, hashSecret } from '../auth/credential-secret.js';
import { loadConfig, type Config } from '../config.js';
import { openSqliteStores } from '../storage/sqlite/index.js';
import { Permission, type CredentialRecord, type Stores } from '../storage/ports.js';
import { parseDurationMs } from './durations.js';

export interface CliIo {
  argv: string[];
  env: Record<string, string | undefined>;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Starts the server (serve); injected so tests don't listen. */
  serve?: (config: Readonly<Config>) => Promise<unknown>;
}

const USAGE = `Usage: mouthpiece <command> [options]

Commands:
  serve                          start the service (configuration from the environment; see README)
  credentials create --name NAME [--permissions session:create,admin] [--max-sessions N]
                     [--max-duration 1h] [--max-text-length N] [--rps N] [--expires-in 30d] [--json]
  credentials list [--json]      list credentials (never their secrets)
  credentials revoke ID [--json] revoke a credential; a running server ends its sessions within 2 s
  help                           this text

Common options: --data-dir DIR (default $MOUTHPIECE_DATA_DIR or ./data)
`;

class UsageError extends Error {}

export async function runCli(io: CliIo): Promise<number> {
  const [command, sub, ...rest] = io.argv;
  try {
    switch (command) {
      case 'serve': {
        const config = loadConfig(io.env);
        if (!io.serve) throw new Error('serve is not available here');
        await io.serve(config);
        return 0;
      }
      case 'credentials':
        return credentials(sub, rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout(USAGE);
        return command === undefined ? 1 : 0;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`mouthpiece: ${(err as Error).message}\n\n${USAGE}`);
      return 1;
    }
    throw err;
  }
}

function openStores(
  dataDir: string | undefined,
  env: CliIo['env'],
): { stores: Stores; config: Readonly<Config> } {
  const config = loadConfig(dataDir ? { ...env, MOUTHPIECE_DATA_DIR: dataDir } : env);
  return { stores: openSqliteStores(join(config.dataDir, 'mouthpiece.db')), config };
}

function credentials(sub: string | undefined, args: string[], io: CliIo): number {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      permissions: { type: 'string' },
      'max-sessions': { type: 'string' },
      'max-duration': { type: 'string' },
      'max-text-length': { type: 'string' },
      rps: { type: 'string' },
      'expires-in': { type: 'string' },
      json: { type: 'boolean', default: false },
      'data-dir': { type: 'string' },
    },
  });
  const { stores, config } = openStores(values['data-dir'], io.env);
  try {
    switch (sub) {
      case 'create': {
        const input = parseCreate(values, config);
        const { record, secret } = createCredential(stores, input, Date.now());
        if (values.json) {
          io.stdout(
            JSON.stringify({
              id: record.id,
              secret,
              name: record.name,
              permissions: record.permissions,
              expiresAt: record.expiresAt === null ? null : new Date(record.expiresAt).toISOString(),
              maxSessions: record.limits.maxSessions,
            }) + '\n',
          );
        } else {
          io.stdout(
            `Created credential ${record.id} (${record.name}), permissions: ${record.permissions.join(',') || '(none)'}\n` +
              `Secret (shown once; use it as "Authorization: KS <secret>"):\n\n  ${secret}\n\n`,
          );
        }
        return 0;
      }
      case 'list': {
        const list = stores.credentials.list().map(publicView);
        if (values.json) io.stdout(JSON.stringify(list) + '\n');
        else if (list.length === 0) io.stdout('No credentials.\n');
        else
          for (const c of list)
            io.stdout(`${c.id}  ${c.name}  ${c.permissions.join(',') || '-'}  ${c.status}\n`);
        return 0;
      }
      case 'revoke': {
        const id = positionals[0];
        if (!id) throw new UsageError('credentials revoke needs an ID');
        if (!stores.credentials.revoke(id, Date.now())) {
          io.stderr(`mouthpiece: no credential ${id}\n`);
          return 2;
        }
        const c = publicView(stores.credentials.get(id)!);
        io.stdout(values.json ? JSON.stringify(c) + '\n' : `Revoked ${id}.\n`);
        return 0;
      }
      case undefined:
      default:
        throw new UsageError(`unknown credentials command "${sub ?? ''}"`);
    }
  } finally {
    stores.close();
  }
}

export interface CreateCredentialInput {
  name: string;
  permissions: Permission[];
  maxSessions: number;
  maxSessionDurationMs: number;
  maxTextLength: number;
  requestsPerSecond: number;
  expiresInMs: number | null;
}

function positiveInt(v: string | undefined, flag: string, def: number, allowZero = false): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < (allowZero ? 0 : 1))
    throw new UsageError(`${flag} must be a ${allowZero ? 'non-negative' : 'positive'} integer`);
  return n;
}

function parseCreate(
  v: Record<string, string | boolean | undefined>,
  config: Readonly<Config>,
): CreateCredentialInput {
  const name = v['name'];
  if (typeof name !== 'string' || name.trim() === '') throw new UsageError('credentials create needs --name');
  const perms = typeof v['permissions'] === 'string' ? v['permissions'] : Permission.SESSION_CREATE;
  const permissions = perms
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const known: string[] = Object.values(Permission);
  for (const p of permissions)
    if (!known.includes(p)) throw new UsageError(`unknown permission "${p}" (known: ${known.join(', ')})`);
  const dur = (flag: string): number | undefined => {
    const raw = v[flag];
    if (typeof raw !== 'string') return undefined;
    const ms = parseDurationMs(raw);
    if (ms === undefined) throw new UsageError(`--${flag} must be a duration like 30d, 12h, 90m, 45s`);
    return ms;
  };
  return {
    name: name.trim(),
    permissions: [...new Set(permissions)] as Permission[],
    maxSessions: positiveInt(
      v['max-sessions'] as string | undefined,
      '--max-sessions',
      DEFAULT_MAX_SESSIONS_PER_CREDENTIAL,
    ),
    maxSessionDurationMs: dur('max-duration') ?? config.maxSessionDurationMs,
    maxTextLength: positiveInt(
      v['max-text-length'] as string | undefined,
      '--max-text-length',
      DEFAULT_MAX_TEXT_LENGTH,
    ),
    requestsPerSecond: positiveInt(v['rps'] as string | undefined, '--rps', DEFAULT_CREDENTIAL_RPS, true),
    expiresInMs: dur('expires-in') ?? null,
  };
}

/** Shared by the CLI and the admin API: the secret exists only in the return value. */
export function createCredential(
  stores: Stores,
  input: CreateCredentialInput,
  now: number,
): { record: CredentialRecord; secret: string } {
  const { id, secret } = generateCredential();
  const record: CredentialRecord = {
    id,
    name: input.name,
    secretHash: hashSecret(secret),
    permissions: input.permissions,
    createdAt: now,
    expiresAt: input.expiresInMs === null ? null : now + input.expiresInMs,
    revokedAt: null,
    limits: {
      maxSessions: input.maxSessions,
      maxSessionDurationMs: input.maxSessionDurationMs,
      maxTextLength: input.maxTextLength,
      requestsPerSecond: input.requestsPerSecond,
    },
  };
  stores.credentials.insert(record);
  return { record, secret };
}

export function publicView(c: CredentialRecord) {
  const status =
    c.revokedAt !== null
      ? 'revoked'
      : c.expiresAt !== null && c.expiresAt <= Date.now()
        ? 'expired'
        : 'active';
  return {
    id: c.id,
    name: c.name,
    permissions: c.permissions,
    status,
    createdAt: new Date(c.createdAt).toISOString(),
    expiresAt: c.expiresAt === null ? null : new Date(c.expiresAt).toISOString(),
    revokedAt: c.revokedAt === null ? null : new Date(c.revokedAt).toISOString(),
    limits: c.limits,
  };
}
