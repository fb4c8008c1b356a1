/**
 * The server stands alone: `npm pack` of it and of the workspace packages it needs, installed into
 * an empty folder from those tarballs (third-party packages from the npm cache `npm ci` filled,
 * offline), runs `mouthpiece serve` until /healthz answers and serves the SDK bundle it finds
 * through @mouthpiece/client. Install scripts are skipped to keep this within a minute:
 * better-sqlite3's native addon (the one package that compiles at install, several minutes here)
 * is copied from this checkout's build of the same version.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const PACKED = ['protocol', 'draw', 'engine', 'client', 'server'];
const dir = mkdtempSync(join(tmpdir(), 'mp-standalone-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function run(cmd: string, args: string[], cwd: string, what: string): void {
  // npm as in a folder of its own: none of this repository's npm settings (engine-strict) inherited
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env });
  if (r.status !== 0) throw new Error(`${what} failed (${r.status}): ${r.stderr}${r.stdout}`);
}

const versionOf = (modules: string, pkg: string): string =>
  (JSON.parse(readFileSync(join(modules, pkg, 'package.json'), 'utf8')) as { version: string }).version;

it('npm pack of the server and its workspace packages installs into an empty folder and serves', async () => {
  const tgz = join(dir, 'tgz');
  const app = join(dir, 'app');
  mkdirSync(tgz);
  mkdirSync(app);
  run(
    'npm',
    ['pack', ...PACKED.flatMap((p) => ['-w', `@mouthpiece/${p}`]), '--pack-destination', tgz, '--silent'],
    root,
    'npm pack (run npm run build first)',
  );
  const tarball = (p: string) =>
    `file:${join(
      tgz,
      readdirSync(tgz).find((f) => f.startsWith(`mouthpiece-${p}-`))!,
    )}`;
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({
      name: 'standalone-check',
      private: true,
      dependencies: { '@mouthpiece/server': tarball('server') },
      // every @mouthpiece package from its tarball, never from the registry
      overrides: Object.fromEntries(
        PACKED.filter((p) => p !== 'server').map((p) => [`@mouthpiece/${p}`, tarball(p)]),
      ),
    }),
  );
  run(
    'npm',
    ['install', '--offline', '--ignore-scripts', '--omit=dev', '--no-audit', '--no-fund'],
    app,
    'npm install --offline from the tarballs and the npm cache (run npm ci first: it fills the cache)',
  );
  const modules = join(app, 'node_modules');
  for (const p of PACKED) expect(lstatSync(join(modules, '@mouthpiece', p)).isSymbolicLink(), p).toBe(false);
  expect(
    versionOf(modules, 'better-sqlite3'),
    'better-sqlite3 resolves to the version this checkout built',
  ).toBe(versionOf(join(root, 'node_modules'), 'better-sqlite3'));
  const addon = join('better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  mkdirSync(join(modules, 'better-sqlite3', 'build', 'Release'), { recursive: true });
  copyFileSync(join(root, 'node_modules', addon), join(modules, addon));

  const port = await freePort();
  const server = spawn(
    process.execPath,
    [join(modules, '@mouthpiece', 'server', 'bin', 'mouthpiece.js'), 'serve'],
    {
      cwd: app,
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        HOME: dir,
        PORT: String(port),
        HOST: '127.0.0.1',
        MOUTHPIECE_DATA_DIR: join(dir, 'data'),
        MOUTHPIECE_TURN: 'off',
        MOUTHPIECE_ENGINE_PROCESSES: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const logs: string[] = [];
  server.stdout.on('data', (d: Buffer) => logs.push(d.toString()));
  server.stderr.on('data', (d: Buffer) => logs.push(d.toString()));
  try {
    let healthy = false;
    for (let i = 0; i < 600 && !healthy && server.exitCode === null; i++) {
      healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (!healthy) await new Promise((r) => setTimeout(r, 100));
    }
    expect(
      healthy,
      `mouthpiece serve from the installed packages did not answer /healthz:\n${logs.join('')}`,
    ).toBe(true);
    const sdk = await fetch(`http://127.0.0.1:${port}/sdk/mouthpiece.js`);
    expect(sdk.status).toBe(200);
    expect(await sdk.text()).toMatch(/AvatarSession/);
    expect(logs.join('')).toContain('is running at');
  } finally {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
  }
}, 180_000);
