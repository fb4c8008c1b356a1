/** `mouthpiece credentials create|list|revoke`: operator commands on the data directory's store. */
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  DEFAULT_CREDENTIAL_RPS,
  DEFAULT_MAX_SESSIONS_PER_CREDENTIAL,
  DEFAULT_MAX_TEXT_LENGTH,
} from '@mouthpiece/protocol';
import { createCredential, publicView, type CreateCredentialInput } from '../auth/credential-records.js';
import { parseCredentialId, verifySecret } from '../auth/credential-secret.js';
import { loadConfig, type Config } from '../config.js';
import { openSqliteStores } from '../storage/sqlite/index.js';
import { Permission, type Stores } from '../storage/ports.js';
import { DURATION_EXAMPLES, parseDurationMs } from './durations.js';
import type { CliIo } from './run.js';
import { CREATE_USAGE, CREDENTIALS_USAGE, LIST_USAGE, REVOKE_USAGE } from './usage.js';

export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

const common = {
  json: { type: 'boolean', default: false },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

const createOptions = {
  ...common,
  name: { type: 'string' },
  permissions: { type: 'string' },
  'max-sessions': { type: 'string' },
  'max-duration': { type: 'string' },
  'max-text-length': { type: 'string' },
  rps: { type: 'string' },
  'expires-in': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

const SUBCOMMANDS = {
  create: { usage: CREATE_USAGE, options: createOptions, positionals: 0 },
  list: { usage: LIST_USAGE, options: common, positionals: 0 },
  revoke: { usage: REVOKE_USAGE, options: common, positionals: 1 },
} as const;

export function credentialsCommand(sub: string | undefined, args: string[], io: CliIo, now: number): number {
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout(CREDENTIALS_USAGE);
    return 0;
  }
  if (!(sub in SUBCOMMANDS))
    throw new UsageError(`unknown credentials command "${sub}" (create, list or revoke)`, CREDENTIALS_USAGE);
  const spec = SUBCOMMANDS[sub as keyof typeof SUBCOMMANDS];
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: spec.options, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message, spec.usage);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values['help']) {
    io.stdout(spec.usage);
    return 0;
  }
  // open the store only for a command that will use it (help and usage errors create no database)
  const dataDir = typeof values['data-dir'] === 'string' ? values['data-dir'] : undefined;
  const config = loadConfig(dataDir ? { ...io.env, MOUTHPIECE_DATA_DIR: dataDir } : io.env);
  const input = sub === 'create' ? parseCreate(values, config) : undefined; // flags first: they name themselves
  const stray = parsed.positionals.slice(spec.positionals);
  if (stray.length > 0)
    throw new UsageError(
      `unexpected argument${stray.length > 1 ? 's' : ''} ${stray.map((s) => `"${s}"`).join(' ')}` +
        (sub === 'create'
          ? ' (a value with spaces needs quotes; durations are written 2h, not "2 hours")'
          : ''),
      spec.usage,
    );
  if (sub === 'revoke' && !parsed.positionals[0])
    throw new UsageError('credentials revoke needs an ID', REVOKE_USAGE);
  const stores = openSqliteStores(join(config.dataDir, 'mouthpiece.db'));
  try {
    if (input) return create(stores, input, values['json'] === true, io, now);
    if (sub === 'list') return list(stores, values['json'] === true, io, now);
    return revoke(stores, parsed.positionals[0]!, values['json'] === true, io, now);
  } finally {
    stores.close();
  }
}

function create(stores: Stores, input: CreateCredentialInput, json: boolean, io: CliIo, now: number): number {
  const { record, secret } = createCredential(stores, input, now);
  if (json) {
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
        `Secret (shown once; send it as "Authorization: KS <secret>"):\n\n  ${secret}\n\n`,
    );
  }
  return 0;
}

function list(stores: Stores, json: boolean, io: CliIo, now: number): number {
  const views = stores.credentials.list().map((c) => publicView(c, now));
  if (json) {
    io.stdout(JSON.stringify(views) + '\n');
    return 0;
  }
  if (views.length === 0) {
    io.stdout('No credentials yet. Create one: mouthpiece credentials create --name NAME\n');
    return 0;
  }
  const day = (iso: string | null) => (iso === null ? 'never' : iso.slice(0, 16).replace('T', ' '));
  const rows = [
    ['ID', 'NAME', 'PERMISSIONS', 'STATUS', 'CREATED', 'EXPIRES'],
    ...views.map((c) => [
      c.id,
      c.name,
      c.permissions.join(',') || '-',
      c.status,
      day(c.createdAt),
      day(c.expiresAt),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows)
    io.stdout(
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd() + '\n',
    );
  return 0;
}

function revoke(stores: Stores, given: string, json: boolean, io: CliIo, now: number): number {
  let id = given;
  if (given.startsWith('mp_')) {
    const fromSecret = parseCredentialId(given);
    const record = fromSecret ? stores.credentials.get(fromSecret) : undefined;
    if (!record || !verifySecret(given, record)) {
      io.stderr(
        'mouthpiece: that secret belongs to no credential here; pass the credential id (credentials list)\n',
      );
      return 2;
    }
    id = record.id;
  }
  const before = stores.credentials.get(id);
  if (!before) {
    io.stderr(`mouthpiece: no credential ${id} (credentials list shows the ids)\n`);
    return 2;
  }
  const already = before.revokedAt;
  if (already === null) stores.credentials.revoke(id, now);
  const view = publicView(stores.credentials.get(id)!, now);
  if (json) io.stdout(JSON.stringify(view) + '\n');
  else if (already !== null)
    io.stdout(
      `Credential ${id} was already revoked at ${new Date(already).toISOString()}; nothing changed.\n`,
    );
  else io.stdout(`Revoked ${id} (${before.name}). A running server ends its sessions within 2 s.\n`);
  return 0;
}

function positiveInt(v: string | boolean | undefined, flag: string, def: number, allowZero = false): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (typeof v !== 'string' || !/^\d+$/.test(v.trim()) || n < (allowZero ? 0 : 1))
    throw new UsageError(
      `${flag}: "${String(v)}" is not a ${allowZero ? 'non-negative' : 'positive'} whole number`,
      CREATE_USAGE,
    );
  return n;
}

function parseCreate(
  v: Record<string, string | boolean | undefined>,
  config: Readonly<Config>,
): CreateCredentialInput {
  const name = v['name'];
  if (typeof name !== 'string' || name.trim() === '')
    throw new UsageError('credentials create needs --name NAME', CREATE_USAGE);
  const perms = typeof v['permissions'] === 'string' ? v['permissions'] : Permission.SESSION_CREATE;
  const permissions = perms
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const known: string[] = Object.values(Permission);
  for (const p of permissions)
    if (!known.includes(p))
      throw new UsageError(
        `--permissions: unknown permission "${p}" (known: ${known.join(', ')})`,
        CREATE_USAGE,
      );
  const duration = (flag: string): number | undefined => {
    const raw = v[flag];
    if (raw === undefined) return undefined;
    const ms = typeof raw === 'string' ? parseDurationMs(raw) : undefined;
    if (ms === undefined)
      throw new UsageError(
        `--${flag}: "${String(raw)}" is not a duration; use a number with a unit: ${DURATION_EXAMPLES}`,
        CREATE_USAGE,
      );
    return ms;
  };
  return {
    name: name.trim(),
    permissions: [...new Set(permissions)] as Permission[],
    maxSessions: positiveInt(v['max-sessions'], '--max-sessions', DEFAULT_MAX_SESSIONS_PER_CREDENTIAL),
    maxSessionDurationMs: duration('max-duration') ?? config.maxSessionDurationMs,
    maxTextLength: positiveInt(v['max-text-length'], '--max-text-length', DEFAULT_MAX_TEXT_LENGTH),
    requestsPerSecond: positiveInt(v['rps'], '--rps', DEFAULT_CREDENTIAL_RPS, true),
    expiresInMs: duration('expires-in') ?? null,
  };
}
