/**
 * `mouthpiece serve` as `npm start` runs it (the built CLI, real engine processes): it prints once
 * where the service is and how to make a credential, only then its warnings, and a stop line on
 * Ctrl-C (SIGINT) — also when the terminal sends the Ctrl-C to every process of the group.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

interface Served {
  child: ChildProcessByStdio<null, Readable, Readable>;
  dataDir: string;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

/** The built CLI's `serve`, in its own process group (as a terminal's foreground job). */
async function serve(env: Record<string, string>): Promise<Served> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mp-serve-'));
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: {
      PATH: process.env['PATH'],
      PORT: String(port),
      HOST: '127.0.0.1',
      MOUTHPIECE_DATA_DIR: dataDir,
      MOUTHPIECE_ENGINE_PROCESSES: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  cleanups.push(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    rmSync(dataDir, { recursive: true, force: true });
  });
  for (let i = 0; i < 300 && !/"level":40/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
  return { child, dataDir, port, output: () => out, exited };
}

it('prints the address and the credential command once, then warnings, and a stop line on Ctrl-C', async () => {
  const { child, dataDir, port, output, exited } = await serve({ MOUTHPIECE_TURN: 'off' });
  const out = output();
  const at = (s: string | RegExp) =>
    out.search(typeof s === 'string' ? s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : s);
  expect(out.split(`is running at http://localhost:${port}/`)).toHaveLength(2); // once
  // this server's data dir is not ./data, so the command names it
  expect(out).toContain(`npx mouthpiece credentials create --name demo --data-dir ${dataDir}`);
  expect(out).toContain(`Data                ${dataDir}`);
  const warning = at(/"level":40[^\n]*TURN is off/);
  expect(warning).toBeGreaterThan(at('is running at'));
  expect(at(/"level":40/)).toBe(warning); // no warning before the banner
  for (const line of out.split('\n').filter((l) => l.startsWith('{')))
    expect(() => JSON.parse(line)).not.toThrow();
  child.kill('SIGINT');
  expect(await exited).toBe(0);
  expect(output().trimEnd().endsWith('Mouthpiece stopped.')).toBe(true);
}, 30_000);

it('a Ctrl-C to the whole process group (and npm forwarding it again) stops cleanly, coturn included', async () => {
  const turnPort = await freePort();
  const { child, output, exited } = await serve({
    MOUTHPIECE_TURN: 'managed',
    MOUTHPIECE_TURN_PORT: String(turnPort),
    MOUTHPIECE_TURN_MIN_PORT: '49520',
    MOUTHPIECE_TURN_MAX_PORT: '49530',
    MOUTHPIECE_ENGINE_PROCESSES: '2',
  });
  const started = /"pid":(\d+)[^\n]*"msg":"coturn started"/.exec(output());
  expect(started, output()).not.toBeNull();
  const banner = output().indexOf('is running at');
  expect(banner).toBeGreaterThan(0);
  process.kill(-child.pid!, 'SIGINT'); // the terminal: every process of the foreground group
  await new Promise((r) => setTimeout(r, 10));
  try {
    process.kill(child.pid!, 'SIGINT'); // npm start forwards the same signal to its child, a bit later
  } catch {
    // already stopped
  }
  expect(await exited).toBe(0);
  const after = output().slice(banner);
  expect(after).not.toMatch(/"level":50/);
  expect(after).not.toContain('coturn exited');
  expect(after).not.toContain('engine process died');
  expect(output().trimEnd().endsWith('\nMouthpiece stopped.')).toBe(true);
  expect(() => process.kill(Number(started![1]), 0)).toThrow(); // coturn is gone
}, 30_000);

it('states the relay range in the banner and warns when it or the listening address cannot serve viewers', async () => {
  const turnPort = await freePort();
  const { child, output, exited } = await serve({
    MOUTHPIECE_TURN: 'managed',
    MOUTHPIECE_TURN_PORT: String(turnPort),
    MOUTHPIECE_TURN_MIN_PORT: '49540',
    MOUTHPIECE_TURN_MAX_PORT: '49549',
    MOUTHPIECE_MAX_SESSIONS: '6',
    MOUTHPIECE_TURN_HOST: 'turn.example.test',
    MOUTHPIECE_TURN_LISTEN_IP: '127.0.0.1',
  });
  for (let i = 0; i < 100 && (output().match(/"level":40/g) ?? []).length < 3; i++)
    await new Promise((r) => setTimeout(r, 50));
  const out = output();
  expect(out).toContain('TURN relay ports    49540-49549 (10 ports: at least 5 viewers relayed at once)');
  expect(out).toMatch(/"level":40[^\n]*"relayPorts":10,"viewers":5,"maxSessions":6[^\n]*widen/);
  expect(out).toMatch(/"level":40[^\n]*listens on loopback only[^\n]*MOUTHPIECE_TURN_LISTEN_IP/);
  child.kill('SIGINT');
  expect(await exited).toBe(0);
}, 30_000);
