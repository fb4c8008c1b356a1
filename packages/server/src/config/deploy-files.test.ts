/**
 * The container files at the repository root (Dockerfile, compose.yaml; docs/deploy.md,
 * "Container") name only variables the server reads, so a renamed or misspelt one fails here
 * rather than being ignored by a deployed node. The image itself is run by e2e/container.e2e.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_SPEC } from './spec.js';

const root = (p: string): string => readFileSync(new URL(`../../../../${p}`, import.meta.url), 'utf8');
const declared = new Set(Object.keys(CONFIG_SPEC));

/** `KEY: value` lines under each compose service's `environment:` map, by service. */
function composeEnvironments(text: string): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  let service = '';
  let inEnv = false;
  for (const line of text.split('\n')) {
    const svc = /^ {2}([a-z][\w-]*):\s*$/.exec(line);
    if (svc) {
      service = svc[1]!;
      out.set(service, new Map());
      inEnv = false;
      continue;
    }
    if (/^ {4}environment:/.test(line)) {
      inEnv = true;
      continue;
    }
    if (/^ {0,4}\S/.test(line)) inEnv = false;
    const kv = /^ {6}([A-Z][A-Z0-9_]*):\s*(.*)$/.exec(line);
    if (inEnv && kv && service) out.get(service)!.set(kv[1]!, kv[2]!);
  }
  return out;
}

describe('container files', () => {
  const compose = root('compose.yaml');
  const envs = composeEnvironments(compose);

  it("compose.yaml's Mouthpiece services set only variables config/spec.ts declares", () => {
    const mouthpieces = ['mouthpiece', 'node-a', 'node-b'];
    for (const s of mouthpieces) expect(envs.get(s)?.size, s).toBeGreaterThan(0);
    for (const s of mouthpieces)
      for (const name of envs.get(s)!.keys()) expect(declared.has(name), `${s}: ${name}`).toBe(true);
  });

  it('the cluster nodes share Redis and each has its own id, port and public URL', () => {
    // node-b inherits node-a's map (<<: *cluster-env) and overrides these
    const a = envs.get('node-a')!;
    const b = envs.get('node-b')!;
    expect(a.get('MOUTHPIECE_REDIS_URL')).toMatch(/^redis:\/\//);
    expect(compose).toMatch(/node-b:[\s\S]*<<: \*cluster-env/);
    for (const k of ['PORT', 'MOUTHPIECE_NODE_ID', 'MOUTHPIECE_NODE_URL', 'MOUTHPIECE_PUBLIC_URL']) {
      expect(b.get(k), k).toBeDefined();
      expect(b.get(k), k).not.toBe(a.get(k));
    }
  });

  it('the Dockerfile keeps the data dir in its volume and checks /healthz', () => {
    const dockerfile = root('Dockerfile');
    for (const m of dockerfile.matchAll(/\b(MOUTHPIECE_[A-Z0-9_]+)=/g))
      expect(declared.has(m[1]!), m[1]).toBe(true);
    const dataDir = /MOUTHPIECE_DATA_DIR=(\S+)/.exec(dockerfile)?.[1];
    expect(dataDir).toBe('/data');
    expect(dockerfile).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK [\s\S]*\/healthz/m);
    expect(dockerfile).toMatch(/^USER (?!root)\w+$/m);
    expect(dockerfile).toMatch(/^FROM debian:bookworm-slim AS node$/m);
  });
});
