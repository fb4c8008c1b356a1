/** The options of `mouthpiece credentials create`, checked into what a new credential holds. */
import type { parseArgs, ParseArgsConfig } from 'node:util';
import {
  DEFAULT_CREDENTIAL_RPS,
  DEFAULT_MAX_SESSIONS_PER_CREDENTIAL,
  DEFAULT_MAX_TEXT_LENGTH,
} from '@mouthpiece/protocol';
import type { CreateCredentialInput } from '../auth/credential-records.js';
import type { Config } from '../config.js';
import { Permission } from '../storage/ports.js';
import { DURATION_EXAMPLES, durationText, parseDurationMs, suggestDuration } from './durations.js';
import { CREATE_USAGE, UsageError } from './usage.js';

export const commonOptions = {
  json: { type: 'boolean', default: false },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

export const createOptions = {
  ...commonOptions,
  name: { type: 'string' },
  permissions: { type: 'string' },
  'max-sessions': { type: 'string' },
  'max-duration': { type: 'string' },
  'max-text-length': { type: 'string' },
  rps: { type: 'string' },
  'expires-in': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/**
 * Longest values. A session's end is a timer, and Node timers hold at most 2^31-1 ms (24.8 days;
 * a longer one fires at once); an expiry must stay a valid date.
 */
const MAX_DURATION_MS = { 'max-duration': 24 * 86_400_000, 'expires-in': 36_500 * 86_400_000 } as const;

/**
 * Each option's value as the person typed it, with the words the shell split off after it:
 * `--max-duration 2 hours` arrives as `--max-duration`, `2`, `hours` and reads "2 hours".
 */
export function asTyped(tokens: ReturnType<typeof parseArgs>['tokens']): Record<string, string> {
  const typed: Record<string, string> = {};
  let last: { name: string; next: number } | undefined;
  for (const t of tokens ?? []) {
    if (t.kind === 'option' && t.value !== undefined) {
      typed[t.name] = t.value;
      last = { name: t.name, next: t.index + (t.inlineValue ? 1 : 2) };
    } else if (t.kind === 'positional' && last && t.index === last.next) {
      typed[last.name] += ` ${t.value}`;
      last.next++;
    } else last = undefined;
  }
  return typed;
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

export function parseCreate(
  v: Record<string, string | boolean | undefined>,
  typed: Record<string, string>,
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
  const duration = (flag: 'max-duration' | 'expires-in'): number | undefined => {
    const raw = v[flag];
    if (raw === undefined) return undefined;
    const ms = typeof raw === 'string' ? parseDurationMs(raw) : undefined;
    if (ms === undefined) {
      const text = typed[flag] ?? String(raw);
      const meant = suggestDuration(text);
      throw new UsageError(
        `--${flag}: "${text}" is not a duration; use a number with a unit: ${DURATION_EXAMPLES}` +
          (meant ? ` ("${text}" is ${meant})` : ''),
        CREATE_USAGE,
      );
    }
    if (ms > MAX_DURATION_MS[flag])
      throw new UsageError(
        `--${flag}: "${String(raw)}" is too long; at most ${durationText(MAX_DURATION_MS[flag])}`,
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
