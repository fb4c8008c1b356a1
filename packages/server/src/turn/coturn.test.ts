/** The managed coturn supervisor with the real `turnserver` (Debian's coturn). */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startManagedTurn, type ManagedTurn } from './coturn.js';

interface Line {
  level: 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  msg: string;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function requireTurnserver(): void {
  try {
    execFileSync('sh', ['-c', 'command -v turnserver'], { stdio: 'ignore' });
  } catch {
    throw new Error('these tests run the real coturn: apt-get install coturn (.ci/run installs it)');
  }
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

async function start(
  healthyAfterMs?: number,
): Promise<{ turn: ManagedTurn; lines: Line[]; dataDir: string }> {
  requireTurnserver();
  const dataDir = mkdtempSync(join(tmpdir(), 'mp-coturn-'));
  const lines: Line[] = [];
  const at = (level: Line['level']) => (fields: object, msg: string) =>
    void lines.push({ level, fields: fields as Record<string, unknown>, msg });
  const port = await freePort();
  const turn = await startManagedTurn({
    dataDir,
    listeningIp: '127.0.0.1',
    relayIp: '127.0.0.1',
    port,
    minPort: 49_500,
    maxPort: 49_510,
    realm: 'mouthpiece',
    secret: 'test-secret',
    allowLoopback: true,
    logger: { info: at('info'), warn: at('warn'), error: at('error') },
    ...(healthyAfterMs !== undefined && { healthyAfterMs }),
  });
  cleanups.push(async () => {
    await turn.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { turn, lines, dataDir };
}

async function until<T>(f: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it('a coturn that dies is restarted, with one structured warning (static message; pid, signal, delay)', async () => {
  const { turn, lines } = await start();
  const first = turn.pid()!;
  process.kill(first, 'SIGKILL');
  const warning = await until(() => lines.find((l) => l.level === 'warn'), 'the exit warning');
  expect(warning).toEqual({
    level: 'warn',
    msg: 'coturn exited; restarting',
    fields: { pid: first, code: null, signal: 'SIGKILL', delayMs: 500, restarts: 1 },
  });
  const restarted = await until(() => lines.find((l) => l.msg === 'coturn restarted'), 'the restart');
  const second = turn.pid()!;
  expect(second).not.toBe(first);
  expect(restarted).toEqual({ level: 'info', msg: 'coturn restarted', fields: { pid: second } });
  await turn.close();
  expect(alive(second)).toBe(false);
  expect(lines.filter((l) => l.level !== 'info')).toHaveLength(1); // close is not a crash
});

it('restart delays grow while coturn keeps dying and start short again once it has run healthy', async () => {
  const { turn, lines } = await start(1500);
  const kill = async (n: number) => {
    const pid = await until(
      () => (lines.filter((l) => l.msg === 'coturn restarted').length >= n ? turn.pid() : undefined),
      'a restart',
    );
    process.kill(pid, 'SIGKILL');
    return until(() => lines.filter((l) => l.level === 'warn')[n], 'the exit warning');
  };
  process.kill(turn.pid()!, 'SIGKILL');
  await until(() => lines.find((l) => l.level === 'warn'), 'the exit warning');
  const second = await kill(1); // at once after its restart: still failing
  expect(second.fields).toMatchObject({ delayMs: 1000, restarts: 2 });
  await until(
    () => (lines.filter((l) => l.msg === 'coturn restarted').length >= 2 ? true : undefined),
    'a restart',
  );
  await new Promise((r) => setTimeout(r, 1600)); // healthy for longer than healthyAfterMs
  const third = await kill(2);
  expect(third.fields).toMatchObject({ delayMs: 500, restarts: 1 });
});

it('runs coturn in its own process group, so a Ctrl-C in the terminal reaches only its supervisor', async () => {
  const { turn } = await start();
  // field 5 of /proc/<pid>/stat is the process group (after the parenthesised command name)
  const group = (pid: number | 'self') =>
    readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[2];
  expect(group(turn.pid()!)).toBe(String(turn.pid()));
  expect(group(turn.pid()!)).not.toBe(group('self'));
});

it('a second server on the same data directory is refused and leaves the first one its coturn', async () => {
  const { turn, dataDir } = await start();
  const port = await freePort();
  await expect(
    startManagedTurn({
      dataDir,
      listeningIp: '127.0.0.1',
      relayIp: '127.0.0.1',
      port,
      minPort: 49_520,
      maxPort: 49_530,
      realm: 'mouthpiece',
      secret: 'test-secret',
      allowLoopback: true,
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    }),
  ).rejects.toThrow(new RegExp(`another Mouthpiece server \\(pid ${process.pid}\\).*MOUTHPIECE_DATA_DIR`));
  expect(alive(turn.pid()!)).toBe(true);
});
