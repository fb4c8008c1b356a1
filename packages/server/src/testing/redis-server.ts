/**
 * A real Debian `redis-server` for tests: its own data dir, a free port, AOF on (as docs/cluster.md
 * asks of production), no RDB snapshots. `restart()` stops it and starts it again on the same port
 * and data dir, so a test sees what a Redis restart keeps. A missing binary fails with what to install.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REDIS_SERVER = '/usr/bin/redis-server';

export interface TestRedis {
  url: string;
  port: number;
  dataDir: string;
  /** Stops redis-server (SIGTERM, then SIGKILL after 5 s). Data stays for `start()`. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data dir. */
  start(): Promise<void>;
  restart(): Promise<void>;
  /** Stops it and removes its data dir. */
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once `PING` answers `+PONG` on the port. */
async function waitForPong(port: number, proc: ChildProcess, logs: string[]): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`redis-server exited: ${logs.join('')}`);
    const ok = await new Promise<boolean>((resolve) => {
      const sock = createConnection({ port, host: '127.0.0.1' }, () => sock.write('PING\r\n'));
      sock.once('data', (d) => {
        sock.destroy();
        resolve(d.toString().startsWith('+PONG'));
      });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not answer PING: ${logs.join('')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `host`: an extra address to listen on (a test namespace's, so nodes in other namespaces reach it). */
export async function startRedis(opts: { host?: string } = {}): Promise<TestRedis> {
  if (!existsSync(REDIS_SERVER))
    throw new Error(`${REDIS_SERVER} is missing: apt-get install redis-server (.ci/run installs it)`);
  const dataDir = mkdtempSync(join(tmpdir(), 'mp-redis-'));
  const port = await freePort();
  let proc: ChildProcess | undefined;
  const logs: string[] = [];
  const start = async (): Promise<void> => {
    const p = spawn(
      REDIS_SERVER,
      [
        '--port',
        String(port),
        '--bind',
        ...(opts.host && opts.host !== '127.0.0.1' ? [opts.host, '127.0.0.1'] : ['127.0.0.1']),
        '--dir',
        dataDir,
        '--appendonly',
        'yes',
        '--appendfsync',
        'everysec',
        '--save',
        '',
        '--daemonize',
        'no',
        '--protected-mode',
        'no',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    proc = p;
    p.stdout?.on('data', (d: Buffer) => logs.push(d.toString()));
    p.stderr?.on('data', (d: Buffer) => logs.push(d.toString()));
    await waitForPong(port, p, logs);
  };
  const stop = async (): Promise<void> => {
    const p = proc;
    proc = undefined;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM'); // redis-server flushes the AOF on SIGTERM
    const t = setTimeout(() => p.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(t);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dataDir,
    stop,
    start,
    async restart() {
      await stop();
      await start();
    },
    async close() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
