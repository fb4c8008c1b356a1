/**
 * A cluster as an operator runs one (docs/cluster.md): a real `redis-server` (AOF on, its own data
 * dir) and two or three `mouthpiece serve` processes sharing it, each with its own data dir, port,
 * MOUTHPIECE_NODE_ID and MOUTHPIECE_NODE_URL. Credentials are made with the CLI against Redis.
 * A node may run in its own network namespace (`wrap` and `host`, see node-netns.ts): then it
 * listens on that namespace's address, and the test reaches it there.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedis, type TestRedis } from '../../packages/server/src/testing/redis-server.js';
import { CLI, E2E_METRICS_TOKEN, freePort } from './server.js';

export interface ClusterNode {
  id: string;
  url: string;
  proc: ChildProcess;
  logs: string[];
  /** Calls this node as a backend or a page would. */
  api(path: string, init?: ApiInit): Promise<Response>;
  /** SIGTERM, as an operator stops a node (its sessions end `server_restart`). */
  stop(): Promise<void>;
  /** SIGKILL: the node dies without a word (its sessions end `node_failed` elsewhere). */
  kill(): Promise<void>;
}

export interface ApiInit {
  method?: string;
  token?: string;
  ks?: string;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
}

export interface NodeOptions {
  id: string;
  env?: Record<string, string>;
  /** A command prefix that runs the node in its own network namespace, listening on `host`. */
  wrap?: string[];
  host?: string;
}

export interface TestCluster {
  redis: TestRedis;
  nodes: ClusterNode[];
  /** Starts another node (or restarts one with the same id). */
  startNode(opts: NodeOptions): Promise<ClusterNode>;
  /** A credential made with `mouthpiece credentials create` against Redis; returns its secret. */
  createCredential(args?: string[]): { secret: string; id: string };
  /** Runs `mouthpiece credentials …` against Redis. */
  cli(args: string[]): { status: number | null; stdout: string; stderr: string };
  close(): Promise<void>;
}

export const DEFAULT_SESSION = { visualConfig: { avatarId: 'amara' }, voiceConfig: { id: 'en-us-female' } };

function apiOf(url: string): ClusterNode['api'] {
  return (path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token) headers['authorization'] = `Bearer ${init.token}`;
    if (init.ks) headers['authorization'] = `KS ${init.ks}`;
    let body = init.body;
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    return fetch(`${url}${path}`, {
      method: init.method ?? 'POST',
      headers,
      ...(body !== undefined ? { body } : {}),
    });
  };
}

async function waitReady(url: string, proc: ChildProcess, logs: string[]): Promise<void> {
  const deadline = Date.now() + 40_000;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`node exited: ${logs.join('')}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`node did not become ready: ${logs.join('')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function exitOf(proc: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill(signal);
  const t = setTimeout(() => proc.kill('SIGKILL'), 8000);
  await exited;
  clearTimeout(t);
}

export async function startCluster(
  nodes: NodeOptions[],
  opts: { redisHost?: string; env?: Record<string, string> } = {},
): Promise<TestCluster> {
  const redis = await startRedis(opts.redisHost ? { host: opts.redisHost } : {});
  const redisUrl = `redis://${opts.redisHost ?? '127.0.0.1'}:${redis.port}`;
  const dirs: string[] = [];
  const baseEnv = (): Record<string, string | undefined> => ({
    ...process.env,
    MOUTHPIECE_REDIS_URL: redisUrl,
    MOUTHPIECE_ENGINE_PROCESSES: '1',
    MOUTHPIECE_TURN: 'off',
    MOUTHPIECE_LOG_LEVEL: 'info',
    MOUTHPIECE_METRICS_TOKEN: E2E_METRICS_TOKEN,
    ...opts.env,
  });
  const cluster: TestCluster = {
    redis,
    nodes: [],
    async startNode(n) {
      const dataDir = mkdtempSync(join(tmpdir(), `mp-node-${n.id}-`));
      dirs.push(dataDir);
      const port = await freePort(n.host ?? '127.0.0.1').catch(() => freePort());
      const host = n.host ?? '127.0.0.1';
      const url = `http://${host}:${port}`;
      const env = {
        ...baseEnv(),
        PORT: String(port),
        HOST: host,
        MOUTHPIECE_PUBLIC_URL: url,
        MOUTHPIECE_NODE_URL: url,
        MOUTHPIECE_NODE_ID: n.id,
        MOUTHPIECE_DATA_DIR: dataDir,
        ...n.env,
      };
      const argv = [...(n.wrap ?? []), process.execPath, CLI, 'serve'];
      const proc = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const logs: string[] = [];
      proc.stdout?.on('data', (d: Buffer) => logs.push(d.toString()));
      proc.stderr?.on('data', (d: Buffer) => logs.push(d.toString()));
      await waitReady(url, proc, logs);
      const node: ClusterNode = {
        id: n.id,
        url,
        proc,
        logs,
        api: apiOf(url),
        stop: () => exitOf(proc, 'SIGTERM'),
        kill: () => exitOf(proc, 'SIGKILL'),
      };
      cluster.nodes = [...cluster.nodes.filter((x) => x.id !== n.id), node];
      return node;
    },
    cli(args) {
      const dataDir = mkdtempSync(join(tmpdir(), 'mp-cli-'));
      dirs.push(dataDir);
      const r = spawnSync(process.execPath, [CLI, 'credentials', ...args], {
        env: { ...baseEnv(), MOUTHPIECE_DATA_DIR: dataDir },
        encoding: 'utf8',
      });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    },
    createCredential(args = ['--rps', '0', '--max-sessions', '50']) {
      const r = cluster.cli(['create', '--name', 'cluster-e2e', ...args, '--json']);
      if (r.status !== 0) throw new Error(`credential creation failed: ${r.stderr}`);
      return JSON.parse(r.stdout) as { secret: string; id: string };
    },
    async close() {
      await Promise.all(cluster.nodes.map((n) => n.stop()));
      await redis.close();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
  try {
    for (const n of nodes) await cluster.startNode(n);
  } catch (err) {
    await cluster.close();
    throw err;
  }
  return cluster;
}

/** Creates a session through `node`; returns its id and token. */
export async function createSession(
  node: ClusterNode,
  secret: string,
  body: unknown = DEFAULT_SESSION,
): Promise<{ sessionId: string; token: string; viewerToken: string; servedBy: string | null }> {
  const r = await node.api('/v1/avatar-session', { ks: secret, json: body });
  if (!r.ok) throw new Error(`create on ${node.id}: ${r.status} ${await r.text()}`);
  const j = (await r.json()) as { sessionId: string; token: string; viewerToken: string };
  return { ...j, servedBy: r.headers.get('x-mouthpiece-node') };
}

/** Polls `fn` until it returns a value (not undefined), at most `ms`. */
export async function until<T>(fn: () => Promise<T | undefined>, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
