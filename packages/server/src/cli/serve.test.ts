/**
 * `mouthpiece serve` as `npm start` runs it (the built CLI, real engine processes): it prints once
 * where the service is and how to make a credential, only then its warnings, and a stop line on
 * Ctrl-C (SIGINT).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

it('prints the address and the credential command once, then warnings, and a stop line on Ctrl-C', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mp-serve-'));
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: {
      PATH: process.env['PATH'],
      PORT: String(port),
      HOST: '127.0.0.1',
      MOUTHPIECE_DATA_DIR: dataDir,
      MOUTHPIECE_TURN: 'off',
      MOUTHPIECE_ENGINE_PROCESSES: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  try {
    for (let i = 0; i < 300 && !/"level":40/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
    const at = (s: string | RegExp) =>
      out.search(typeof s === 'string' ? s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : s);
    expect(out.split(`is running at http://localhost:${port}/`)).toHaveLength(2); // once
    expect(out).toContain('npx mouthpiece credentials create --name demo');
    expect(out).toContain(`Data                ${dataDir}`);
    const warning = at(/"level":40[^\n]*TURN is off/);
    expect(warning).toBeGreaterThan(at('is running at'));
    expect(at(/"level":40/)).toBe(warning); // no warning before the banner
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(out.trimEnd().endsWith('Mouthpiece stopped.')).toBe(true);
  } finally {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 30_000);
