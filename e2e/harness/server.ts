/**
 * Starts the real server as a user would (`mouthpiece serve` from the built CLI) with a temp data
 * dir, creates a credential with the CLI, and wraps the HTTP calls a backend makes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));

/** The MOUTHPIECE_METRICS_TOKEN test servers start with (`/metrics` is off without a token). */
export const E2E_METRICS_TOKEN = 'e2e-metrics-token-0123';

/** A test server's `/metrics` text, read with E2E_METRICS_TOKEN. */
export async function readMetrics(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/metrics`, {
    headers: { authorization: `Bearer ${E2E_METRICS_TOKEN}` },
  });
  if (!res.ok) throw new Error(`/metrics answered ${res.status}: ${await res.text()}`);
  return res.text();
}

export interface TestServer {
  url: string;
  secret: string;
  dataDir: string;
  proc: ChildProcess;
  logs: string[];
  api(
    path: string,
    init?: {
      method?: string;
      token?: string;
      ks?: string;
      json?: unknown;
      body?: BodyInit;
      headers?: Record<string, string>;
    },
  ): Promise<Response>;
  createSession(body?: unknown): Promise<{ sessionId: string; token: string }>;
  initClient(
    sessionId: string,
    token: string,
  ): Promise<{ whepUrl: string; iceServers: RTCIceServer[]; turn: { urls: string[] } }>;
  stop(): Promise<void>;
}

export function requireE2eEnvironment(): void {
  if (process.env['MOUTHPIECE_E2E_NETNS'] !== '1' && process.env['MOUTHPIECE_E2E_HOST_NET'] !== '1') {
    throw new Error(
      'Browser tests run inside the test network namespace (npm test does this as root); set MOUTHPIECE_E2E_HOST_NET=1 to run them on this host network instead',
    );
  }
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * `wrap` and `host`: run the server in another network namespace (a command prefix, see
 * server-link.ts) and reach it at that namespace's address.
 */
export async function startServer(
  env: Record<string, string> = {},
  o: { wrap?: string[]; host?: string } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mp-e2e-'));
  const port = await freePort();
  /** The test namespace's own address (scripts/netns.sh): where the page reaches the server. */
  const host = o.host ?? (process.env['MOUTHPIECE_E2E_NETNS'] === '1' ? '10.99.0.2' : '127.0.0.1');
  const baseEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '0.0.0.0',
    MOUTHPIECE_PUBLIC_URL: `http://${host}:${port}`,
    MOUTHPIECE_DATA_DIR: dataDir,
    MOUTHPIECE_ENGINE_PROCESSES: '1',
    MOUTHPIECE_TURN: 'off',
    MOUTHPIECE_SESSION_IDLE_TIMEOUT_MS: '20000',
    MOUTHPIECE_LOG_LEVEL: 'info',
    MOUTHPIECE_METRICS_TOKEN: E2E_METRICS_TOKEN,
    ...env,
  };
  const created = spawnSync(
    process.execPath,
    [CLI, 'credentials', 'create', '--name', 'e2e', '--rps', '0', '--max-sessions', '50', '--json'],
    {
      env: baseEnv,
      encoding: 'utf8',
    },
  );
  if (created.status !== 0) throw new Error(`credential creation failed: ${created.stderr}`);
  const secret = (JSON.parse(created.stdout) as { secret: string }).secret;
  const wrap = o.wrap ?? [];
  const proc = spawn(
    wrap[0] ?? process.execPath,
    [...wrap.slice(1), ...(wrap.length ? [process.execPath] : []), CLI, 'serve'],
    {
      env: baseEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const logs: string[] = [];
  proc.stdout.on('data', (d: Buffer) => logs.push(d.toString()));
  proc.stderr.on('data', (d: Buffer) => logs.push(d.toString()));
  const url = `http://${host}:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited: ${logs.join('')}`);
    try {
      const r = await fetch(`${url}/readyz`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not become ready: ${logs.join('')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const api: TestServer['api'] = (path, init = {}) => {
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
  return {
    url,
    secret,
    dataDir,
    proc,
    logs,
    api,
    async createSession(body = { visualConfig: { avatarId: 'amara' }, voiceConfig: { id: 'en-us-female' } }) {
      const r = await api('/v1/avatar-session', { ks: secret, json: body });
      if (!r.ok) throw new Error(`create: ${r.status} ${await r.text()}`);
      return (await r.json()) as { sessionId: string; token: string };
    },
    async initClient(sessionId, token) {
      const r = await api(`/v1/avatar-session/${sessionId}/init-client`, { token, json: {} });
      if (!r.ok) throw new Error(`init-client: ${r.status} ${await r.text()}`);
      return (await r.json()) as { whepUrl: string; iceServers: RTCIceServer[]; turn: { urls: string[] } };
    },
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(t);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
