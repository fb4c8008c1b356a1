/**
 * Reads every variable of the spec (spec.ts) from an environment: its value, else its schema's
 * `default`, checked against its schema's keywords with a message naming the variable. An empty
 * value is unset unless the schema says `emptyIsValue`.
 */
import { Kind, type TSchema } from '@sinclair/typebox';
import { CONFIG_SPEC, type EnvOptions, type EnvValues } from './spec.js';
import { CodedError } from '@mouthpiece/protocol';

export class ConfigError extends CodedError {
  static override code = 'ERR_CONFIG';
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

/** The keywords the reader understands (what spec.ts's helpers write). */
type EnvSchema = TSchema &
  EnvOptions & {
    minimum?: number;
    maximum?: number;
    minLength?: number;
    pattern?: string;
    anyOf?: Array<{ const: string }>;
  };

const TRUE = ['1', 'true', 'yes'];
const FALSE = ['', '0', 'false', 'no'];

export function readEnv(env: Env): EnvValues {
  const values: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(CONFIG_SPEC) as Array<[string, EnvSchema]>)
    values[name] = readOne(name, schema, env[name]);
  return values as EnvValues;
}

function readOne(name: string, schema: EnvSchema, given: string | undefined): unknown {
  const raw = schema.trim ? given?.trim() : given;
  if (schema[Kind] === 'Boolean') return flag(name, raw);
  if (raw === undefined || (raw === '' && !schema.emptyIsValue)) return schema.default as unknown;
  switch (schema[Kind]) {
    case 'Integer':
      return integer(name, schema, raw);
    case 'Union':
      return member(name, schema, raw);
    case 'String':
      return string(name, schema, raw);
    default:
      throw new Error(`config spec: ${name} has a schema the reader does not know`);
  }
}

function flag(name: string, raw: string | undefined): boolean {
  const v = (raw ?? '').toLowerCase();
  if (FALSE.includes(v)) return false;
  if (TRUE.includes(v)) return true;
  throw new ConfigError(`${name} must be 0 or 1, got "${raw}"`);
}

function integer(name: string, schema: EnvSchema, raw: string): number {
  const min = schema.minimum ?? 0;
  const max = schema.maximum ?? Number.MAX_SAFE_INTEGER;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < min || v > max)
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  return v;
}

function member(name: string, schema: EnvSchema, raw: string): string {
  const allowed = (schema.anyOf ?? []).map((s) => s.const);
  if (!allowed.includes(raw))
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw;
}

function string(name: string, schema: EnvSchema, raw: string): string {
  if (schema.minLength !== undefined && raw.length < schema.minLength)
    throw new ConfigError(
      `${name} must be at least ${schema.minLength} characters${schema.hint ? ` (${schema.hint})` : ''}`,
    );
  if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(raw))
    throw new ConfigError(`${name} ${schema.patternMessage ?? `must match ${schema.pattern}`}, got "${raw}"`);
  return raw;
}
