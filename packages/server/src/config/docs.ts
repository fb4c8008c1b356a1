/**
 * The configuration table (README.md, "Configuration"), made from the spec: one row per
 * variable with its default (the schema's `default`, else its `docDefault`, else unset) and its
 * meaning. config.test.ts fails when the README's table says anything else.
 */
import type { TSchema } from '@sinclair/typebox';
import { CONFIG_SPEC, type EnvOptions } from './spec.js';

export interface ConfigDoc {
  name: string;
  default: string;
  meaning: string;
}

function shownDefault(schema: TSchema & EnvOptions): string {
  const d: unknown = schema.default;
  if (typeof d === 'boolean') return d ? '1' : '0';
  if (typeof d === 'number' || typeof d === 'string') return String(d);
  return schema.docDefault ?? 'unset';
}

/** Every variable, its default and meaning. */
export const CONFIG_DOCS: readonly ConfigDoc[] = (
  Object.entries(CONFIG_SPEC) as Array<[string, TSchema & EnvOptions]>
).map(([name, schema]) => ({ name, default: shownDefault(schema), meaning: schema.description }));

/** The table as Markdown (Prettier pads the columns when the README is formatted). */
export function configTable(docs: readonly ConfigDoc[] = CONFIG_DOCS): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  return [
    '| variable | default | meaning |',
    '| --- | --- | --- |',
    ...docs.map((d) => `| \`${d.name}\` | ${cell(d.default)} | ${cell(d.meaning)} |`),
  ].join('\n');
}
