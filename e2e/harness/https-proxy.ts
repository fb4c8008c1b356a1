/**
 * A TLS reverse proxy in front of a test server, run from the committed configurations in
 * deploy/ (Caddyfile, nginx.conf) with only the host name, ports and certificate paths
 * substituted: a self-signed certificate for a test host name (openssl), the proxy as a process
 * of the test (not systemd), and HTTPS requests from Node that trust that certificate.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import type { LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './server.js';

export const PROXIES = ['caddy', 'nginx'] as const;
export type ProxyKind = (typeof PROXIES)[number];

const BINARIES: Record<ProxyKind | 'openssl', string> = {
  caddy: '/usr/bin/caddy',
  nginx: '/usr/sbin/nginx',
  openssl: '/usr/bin/openssl',
};
const DEPLOY = fileURLToPath(new URL('../../deploy/', import.meta.url));

export interface TestCertificate {
  host: string;
  certPath: string;
  keyPath: string;
  pem: string;
  /** base64 SHA-256 of the public key: Chromium's --ignore-certificate-errors-spki-list. */
  spki: string;
}

export interface TestProxy {
  kind: ProxyKind;
  /** https://<test host>:<port> */
  url: string;
  port: number;
  logs: string[];
  /** nginx's access log (empty for Caddy, which logs nothing by default). */
  accessLog(): string;
  stop(): Promise<void>;
}

/** Throws saying what to install when a tool the proxy tests run is missing. */
export function requireProxyTools(kinds: readonly ProxyKind[] = PROXIES): void {
  for (const tool of ['openssl', ...kinds] as const)
    if (!existsSync(BINARIES[tool]))
      throw new Error(
        `${BINARIES[tool]} is missing: apt-get install ${tool} (.ci/run installs it; the HTTPS proxy tests run the real one)`,
      );
}

function run(cmd: string, args: string[], input?: Buffer): Buffer {
  const r = spawnSync(cmd, args, { input });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr.toString()}`);
  return r.stdout;
}

/** A self-signed certificate for `host` (and the address `ip`, when given). */
export function makeCertificate(dir: string, host: string, ip?: string): TestCertificate {
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  run(BINARIES.openssl, [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', keyPath, '-out', certPath, '-days', '2', '-subj', `/CN=${host}`,
    '-addext', `subjectAltName=DNS:${host}${ip ? `,IP:${ip}` : ''}`,
  ]); // prettier-ignore
  const pub = run(BINARIES.openssl, ['x509', '-pubkey', '-noout', '-in', certPath]);
  const der = run(BINARIES.openssl, ['pkey', '-pubin', '-outform', 'der'], pub);
  const spki = run(BINARIES.openssl, ['dgst', '-sha256', '-binary'], der).toString('base64');
  return { host, certPath, keyPath, pem: readFileSync(certPath, 'utf8'), spki };
}

/** Each placeholder must be in the committed file: a renamed one fails here, not silently. */
function substitute(text: string, file: string, pairs: Array<[string, string]>): string {
  let out = text;
  for (const [from, to] of pairs) {
    if (!out.includes(from)) throw new Error(`deploy/${file} no longer contains "${from}"`);
    out = out.split(from).join(to);
  }
  return out;
}

export interface ProxyOptions {
  cert: TestCertificate;
  /** The port the server listens on (the proxy reaches it at 127.0.0.1). */
  serverPort: number;
  /** The HTTPS port; the HTTP port (redirects) is another free one. */
  port: number;
  /** Where Node reaches the test host name (the address the proxy listens on). */
  address: string;
  /** The HTTP port (redirects, ACME's HTTP-01); default a free one. */
  httpPort?: number;
  /**
   * Caddy only: its own certificate from this ACME CA, as deploy/Caddyfile's `tls EMAIL` gets one
   * from Let's Encrypt (`cert` then only names the host and holds the CA's root to trust).
   */
  acme?: { directory: string; listenerCaPath: string };
}

export async function startProxy(kind: ProxyKind, o: ProxyOptions): Promise<TestProxy> {
  requireProxyTools([kind]);
  const dir = mkdtempSync(join(tmpdir(), `mp-${kind}-`));
  const httpPort = o.httpPort ?? (await freePort());
  const { cert } = o;
  let proc: ChildProcess;
  if (kind === 'nginx') {
    const site = substitute(readFileSync(join(DEPLOY, 'nginx.conf'), 'utf8'), 'nginx.conf', [
      ['/etc/letsencrypt/live/avatars.example.com/fullchain.pem', cert.certPath],
      ['/etc/letsencrypt/live/avatars.example.com/privkey.pem', cert.keyPath],
      ['avatars.example.com', cert.host],
      ['listen 443 ', `listen ${o.port} `],
      ['listen [::]:443 ', `listen [::]:${o.port} `],
      ['listen 80;', `listen ${httpPort};`],
      ['listen [::]:80;', `listen [::]:${httpPort};`],
      ['127.0.0.1:8080', `127.0.0.1:${o.serverPort}`],
    ]);
    writeFileSync(join(dir, 'site.conf'), site);
    // what Debian's /etc/nginx/nginx.conf gives a site, with this test's own paths
    writeFileSync(
      join(dir, 'nginx.conf'),
      [
        'daemon off;',
        'user root;',
        'worker_processes 1;',
        `pid ${dir}/nginx.pid;`,
        `error_log ${dir}/error.log warn;`,
        'events { worker_connections 512; }',
        'http {',
        `  access_log ${dir}/access.log;`,
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/${t};`),
        `  include ${dir}/site.conf;`,
        '}',
        '',
      ].join('\n'),
    );
    proc = spawn(BINARIES.nginx, ['-c', join(dir, 'nginx.conf'), '-p', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } else {
    const site = substitute(readFileSync(join(DEPLOY, 'Caddyfile'), 'utf8'), 'Caddyfile', [
      [
        'tls you@example.com',
        o.acme ? 'tls mouthpiece-e2e@example.com' : `tls ${cert.certPath} ${cert.keyPath}`,
      ],
      ['avatars.example.com', cert.host],
      ['127.0.0.1:8080', `127.0.0.1:${o.serverPort}`],
    ]);
    // the test's own global options: its ports, no admin endpoint, its own storage
    const acme = o.acme ? `\tacme_ca ${o.acme.directory}\n\tacme_ca_root ${o.acme.listenerCaPath}\n` : '';
    const global = `{\n\tadmin off\n\thttp_port ${httpPort}\n\thttps_port ${o.port}\n\tstorage file_system ${dir}/data\n\tskip_install_trust\n${acme}}\n\n`;
    writeFileSync(join(dir, 'Caddyfile'), global + site);
    proc = spawn(BINARIES.caddy, ['run', '--adapter', 'caddyfile', '--config', join(dir, 'Caddyfile')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
    });
  }
  const logs: string[] = [];
  proc.stdout?.on('data', (d: Buffer) => logs.push(d.toString()));
  proc.stderr?.on('data', (d: Buffer) => logs.push(d.toString()));
  const url = `https://${cert.host}:${o.port}`;
  const errorLog = () =>
    existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '';
  const deadline = Date.now() + (o.acme ? 90_000 : 20_000); // ACME: an order, a challenge, issuance
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${kind} exited: ${logs.join('')}${errorLog()}`);
    const r = await httpsRequest(`${url}/readyz`, o, {}).catch(() => undefined);
    if (r?.status === 200) break;
    if (Date.now() > deadline)
      throw new Error(`${kind} did not proxy /readyz: ${logs.join('')}${errorLog()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    kind,
    url,
    port: o.port,
    logs,
    accessLog: () =>
      existsSync(join(dir, 'access.log')) ? readFileSync(join(dir, 'access.log'), 'utf8') : '',
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill(kind === 'nginx' ? 'SIGQUIT' : 'SIGTERM');
        const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(t);
      }
      logs.push(errorLog());
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves the test host name to the proxy's address (no DNS in the test namespace). */
export function lookupTo(address: string): LookupFunction {
  return (_host, options, cb) => {
    if ((options as { all?: boolean }).all)
      (cb as unknown as (e: null, a: unknown[]) => void)(null, [{ address, family: 4 }]);
    else cb(null, address, 4);
  };
}

/** One HTTPS request from Node (a backend's call through the proxy), trusting the test certificate. */
export function httpsRequest(
  url: string,
  o: Pick<ProxyOptions, 'cert' | 'address'>,
  init: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: init.method ?? 'GET', headers: init.headers, ca: o.cert.pem, lookup: lookupTo(o.address) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer from ${url} in 30 s`)));
    req.end(init.body);
  });
}
