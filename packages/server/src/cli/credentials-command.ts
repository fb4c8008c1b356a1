/** `mouthpiece credentials create|list|revoke`: operator commands on the data directory's store. */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createCredential, publicView, type CreateCredentialInput } from '../auth/credential-records.js';
import { parseCredentialId, verifySecret } from '../auth/credential-secret.js';
import { openRedisStores, redisPlace } from '../cluster/redis-stores.js';
import { loadConfig } from '../config.js';
import { openSqliteStores } from '../storage/sqlite/index.js';
import type { Stores } from '../storage/ports.js';
import { asTyped, commonOptions, createOptions, parseCreate } from './create-options.js';
import { durationText } from './durations.js';
import type { CliIo } from './io.js';
import { CREATE_USAGE, CREDENTIALS_USAGE, LIST_USAGE, REVOKE_USAGE, UsageError } from './usage.js';

/** How to answer (JSON or text) and which data directory the answer is about. */
interface Where {
  json: boolean;
  dataDir: string;
}

const SUBCOMMANDS = {
  create: { usage: CREATE_USAGE, options: createOptions, positionals: 0 },
  list: { usage: LIST_USAGE, options: commonOptions, positionals: 0 },
  revoke: { usage: REVOKE_USAGE, options: commonOptions, positionals: 1 },
} as const;

export async function credentialsCommand(
  sub: string | undefined,
  args: string[],
  io: CliIo,
  now: number,
): Promise<number> {
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout(CREDENTIALS_USAGE);
    return 0;
  }
  if (!(sub in SUBCOMMANDS))
    throw new UsageError(`unknown credentials command "${sub}" (create, list or revoke)`, CREDENTIALS_USAGE);
  const spec = SUBCOMMANDS[sub as keyof typeof SUBCOMMANDS];
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(spec.usage); // even next to a mistake: help is what was asked for
    return 0;
  }
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: spec.options, strict: true, tokens: true });
  } catch (err) {
    throw new UsageError((err as Error).message, spec.usage);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  // open the store only for a command that will use it (help and usage errors create no database)
  const dataDir = typeof values['data-dir'] === 'string' ? values['data-dir'] : undefined;
  const config = loadConfig(dataDir ? { ...io.env, MOUTHPIECE_DATA_DIR: dataDir } : io.env);
  // flags first: their errors name them (`--max-duration 2 hours` is about the flag, not "hours")
  const input = sub === 'create' ? parseCreate(values, asTyped(parsed.tokens), config) : undefined;
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
  // cluster mode: the credentials every node reads, in Redis; else the data directory's SQLite,
  // where a person waits at the prompt: keep trying a locked database for 10 s (writes are short)
  const stores = config.cluster
    ? await openRedisStores(config.cluster.redisUrl)
    : openSqliteStores(join(config.dataDir, 'mouthpiece.db'), { waitMs: 10_000 });
  try {
    const where: Where = {
      json: values['json'] === true,
      dataDir: config.cluster ? redisPlace(config.cluster.redisUrl) : config.dataDir,
    };
    if (input) return await create(stores, input, where.json, io, now);
    if (sub === 'list') return await list(stores, where, io, now);
    return await revoke(stores, parsed.positionals[0]!, where, io, now);
  } finally {
    await stores.close();
  }
}

async function create(
  stores: Stores,
  input: CreateCredentialInput,
  json: boolean,
  io: CliIo,
  now: number,
): Promise<number> {
  const { record, secret } = await createCredential(stores, input, now);
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
    const { maxSessions, maxSessionDurationMs } = record.limits;
    const expires = record.expiresAt === null ? 'never' : new Date(record.expiresAt).toISOString();
    io.stdout(
      `Created credential ${record.id} (${record.name}), permissions: ${record.permissions.join(',') || '(none)'}\n` +
        `Up to ${maxSessions} sessions at once, each at most ${durationText(maxSessionDurationMs)}; expires ${expires}\n` +
        `Secret (shown once; send it as "Authorization: KS <secret>"):\n\n  ${secret}\n\n`,
    );
  }
  return 0;
}

async function list(stores: Stores, where: Where, io: CliIo, now: number): Promise<number> {
  const views = (await stores.credentials.list()).map((c) => publicView(c, now));
  if (where.json) {
    io.stdout(JSON.stringify(views) + '\n');
    return 0;
  }
  if (views.length === 0) {
    io.stdout(
      `No credentials in ${where.dataDir} yet. Create one: mouthpiece credentials create --name NAME\n`,
    );
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

async function revoke(stores: Stores, arg: string, where: Where, io: CliIo, now: number): Promise<number> {
  const given = arg.trim().replace(/^KS\s+/, ''); // pasted from an Authorization header
  let id = given;
  if (given.startsWith('mp_')) {
    const fromSecret = parseCredentialId(given);
    if (fromSecret === undefined) {
      io.stderr(
        'mouthpiece: that is not a whole secret (mp_<id>_<43 characters>); pass the credential id instead (credentials list shows it)\n',
      );
      return 1;
    }
    const record = await stores.credentials.get(fromSecret);
    if (!record || !verifySecret(given, record)) {
      io.stderr(
        `mouthpiece: that secret belongs to no credential in ${where.dataDir}; pass the credential id (credentials list shows it)\n`,
      );
      return 2;
    }
    id = record.id;
  }
  const before = await stores.credentials.get(id);
  if (!before) {
    io.stderr(
      `mouthpiece: no credential ${id} in ${where.dataDir} (credentials list shows the ids; --data-dir picks another data directory)\n`,
    );
    return 2;
  }
  const already = before.revokedAt;
  if (already === null) await stores.credentials.revoke(id, now);
  const view = publicView((await stores.credentials.get(id))!, now);
  if (where.json) io.stdout(JSON.stringify(view) + '\n');
  else if (already !== null)
    io.stdout(
      `Credential ${id} was already revoked at ${new Date(already).toISOString()}; nothing changed.\n`,
    );
  else io.stdout(`Revoked ${id} (${before.name}). A running server ends its sessions within 2 s.\n`);
  return 0;
}
