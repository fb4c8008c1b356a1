/**
 * A fresh Vite + TypeScript app that installs the SDK as a web team does: `npm pack` of
 * packages/client and packages/react, `npm install` of the tarballs beside vite, typescript,
 * react and react-dom (the versions this repository's lockfile pins), `tsc --noEmit`, `vite build`.
 * The app's pages are e2e/npm-app/. The install is `--offline` (the test network namespace reaches
 * no registry): the packages come from npm's cache, which `npm ci` filled. The app's node_modules
 * is kept in the temp directory between runs, so a rerun reinstalls only the two tarballs.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = fileURLToPath(new URL('../npm-app/', import.meta.url));
const DEPS = ['vite', 'typescript', 'react', 'react-dom', '@types/react', '@types/react-dom'];

const version = (name: string): string =>
  (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;

/** Seconds each step took in the last build, for the test to print. */
export const steps: Record<string, number> = {};

function run(cmd: string, args: string[], cwd: string): string {
  const started = Date.now();
  const step = `${cmd === process.execPath ? (args[0] ?? '').split('/').at(-1) : cmd} ${args.find((a) => !a.startsWith('-') && !a.includes('/')) ?? ''}`;
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  } finally {
    steps[step] = (steps[step] ?? 0) + (Date.now() - started) / 1000;
  }
}

/** Packs both packages, installs them into the cached app, builds it; returns the built site's directory. */
export function buildNpmApp(): string {
  const pins = Object.fromEntries(DEPS.map((d) => [d, version(d)]));
  const app = join(tmpdir(), `mouthpiece-npm-app-${pins['vite']}-${pins['react']}`);
  mkdirSync(app, { recursive: true });
  const packs = join(app, 'packs');
  rmSync(packs, { recursive: true, force: true });
  mkdirSync(packs);
  for (const pkg of ['client', 'react'])
    run('npm', ['pack', '--ignore-scripts', '--pack-destination', packs], join(ROOT, 'packages', pkg));
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify(
      {
        name: 'npm-sdk-app',
        private: true,
        type: 'module',
        dependencies: {
          '@mouthpiece/client': 'file:packs/mouthpiece-client-0.1.0.tgz',
          '@mouthpiece/react': 'file:packs/mouthpiece-react-0.1.0.tgz',
          react: pins['react'],
          'react-dom': pins['react-dom'],
        },
        devDependencies: Object.fromEntries(
          ['vite', 'typescript', '@types/react', '@types/react-dom'].map((d) => [d, pins[d]]),
        ),
      },
      null,
      2,
    ),
  );
  writeFileSync(join(app, 'package-lock.json'), JSON.stringify(appLock(app, pins, packs), null, 2));
  // the tarballs change from run to run under one version: install them afresh
  rmSync(join(app, 'node_modules', '@mouthpiece'), { recursive: true, force: true });
  try {
    run('npm', ['install', '--offline', '--no-audit', '--no-fund'], app);
  } catch (err) {
    throw new Error(
      `${(err as Error).message}\nThe app installs from npm's cache (no registry in the test namespace): run \`npm ci\` at the repository root first.`,
    );
  }
  rmSync(join(app, 'src'), { recursive: true, force: true });
  cpSync(PAGES, app, { recursive: true });
  run(process.execPath, [join(app, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], app);
  run(process.execPath, [join(app, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], app);
  return join(app, 'dist');
}

interface LockEntry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [k: string]: unknown;
}

/**
 * The app's lockfile: its dependencies' closure copied from this repository's (exact versions and
 * integrity, so the install needs no registry metadata, only the cached tarballs), and the tarballs.
 */
function appLock(app: string, pins: Record<string, string>, packs: string): object {
  const root = (
    JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, LockEntry>;
    }
  ).packages;
  const packages: Record<string, LockEntry> = {};
  const visit = (from: string, name: string): void => {
    // Node's lookup: the nearest node_modules/<name> from `from` upward
    for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
      const path = `${dir ? `${dir}/` : ''}node_modules/${name}`;
      const entry = root[path];
      if (entry) {
        if (packages[path]) return;
        // the registry's tarball address (this lockfile omits it): npm's cache is keyed by it
        const version = entry['version'] as string;
        const resolved = `https://registry.npmjs.org/${name}/-/${name.replace(/^@[^/]+\//, '')}-${version}.tgz`;
        packages[path] = { resolved, ...entry };
        for (const d of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) visit(path, d);
        return;
      }
      if (!dir) return; // an optional dependency of another platform
    }
  };
  for (const d of DEPS) visit('', d);
  const tarballs = Object.fromEntries(
    ['client', 'react'].map((p) => {
      const file = `packs/mouthpiece-${p}-0.1.0.tgz`;
      const integrity = `sha512-${createHash('sha512')
        .update(readFileSync(join(app, file)))
        .digest('base64')}`;
      return [`node_modules/@mouthpiece/${p}`, { version: '0.1.0', resolved: `file:${file}`, integrity }];
    }),
  );
  void packs;
  const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as object;
  return {
    name: 'npm-sdk-app',
    lockfileVersion: 3,
    requires: true,
    packages: { '': manifest, ...packages, ...tarballs },
  };
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

/** Serves a directory over HTTP on every address, port chosen by the system. */
export async function serveStatic(dir: string): Promise<{ port: number; server: Server }> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    const file = join(dir, path);
    if (!file.startsWith(dir) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
  return { port: (server.address() as { port: number }).port, server };
}
