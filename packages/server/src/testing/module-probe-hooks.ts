/** The resolve hook of module-probe.ts: writes each ES module URL once to fd 3 (see there). */
import { writeSync } from 'node:fs';
import type { ResolveHook } from 'node:module';
import type { ProbeLine } from './module-probe.js';

const seen = new Set<string>();

export const resolve: ResolveHook = async (specifier, context, next) => {
  const resolved = await next(specifier, context);
  if (!seen.has(resolved.url)) {
    seen.add(resolved.url);
    const line: ProbeLine = { kind: 'esm', url: resolved.url };
    writeSync(3, `${JSON.stringify(line)}\n`);
  }
  return resolved;
};
