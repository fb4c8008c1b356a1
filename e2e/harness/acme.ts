/**
 * A real ACME CA in the test namespace, for Caddy's own certificate (deploy/Caddyfile's `tls
 * EMAIL`): Debian's pebble (Let's Encrypt's test CA, the same protocol as production) and
 * pebble-challtestsrv as its DNS, answering every name with the namespace's address. pebble checks
 * the challenge by connecting to that address on the ports Caddy listens on, as Let's Encrypt does
 * on 80 and 443.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCertificate } from './https-proxy.js';
import { freePort } from './server.js';

const PEBBLE = '/usr/bin/pebble';
const CHALLTESTSRV = '/usr/bin/pebble-challtestsrv';

export interface TestAcme {
  /** The ACME directory URL Caddy is given (`acme_ca`). */
  directory: string;
  /** The PEM of the certificate pebble's own HTTPS listener uses (Caddy's `acme_ca_root`). */
  listenerCaPath: string;
  /** The root pebble signs with (made anew at every start): what a client trusts. */
  root(): Promise<string>;
  logs: string[];
  stop(): Promise<void>;
}

export function requireAcmeTools(): void {
  for (const bin of [PEBBLE, CHALLTESTSRV])
    if (!existsSync(bin))
      throw new Error(
        `${bin} is missing: apt-get install pebble (.ci/run installs it; Caddy's ACME test runs it)`,
      );
}

/** Starts pebble on `address`, validating challenges on `httpPort` (HTTP-01) and `tlsPort` (TLS-ALPN-01). */
export async function startAcme(o: {
  address: string;
  httpPort: number;
  tlsPort: number;
}): Promise<TestAcme> {
  requireAcmeTools();
  const dir = mkdtempSync(join(tmpdir(), 'mp-acme-'));
  const listener = makeCertificate(dir, o.address === '127.0.0.1' ? 'localhost' : o.address, o.address);
  const [acmePort, mgmtPort, dnsPort, dnsMgmtPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  writeFileSync(
    join(dir, 'pebble.json'),
    JSON.stringify({
      pebble: {
        listenAddress: `${o.address}:${acmePort}`,
        managementListenAddress: `${o.address}:${mgmtPort}`,
        certificate: listener.certPath,
        privateKey: listener.keyPath,
        httpPort: o.httpPort,
        tlsPort: o.tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  );
  const logs: string[] = [];
  const procs: ChildProcess[] = [];
  const start = (bin: string, args: string[], env: Record<string, string> = {}): void => {
    const p = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    p.stdout?.on('data', (d: Buffer) => logs.push(d.toString()));
    p.stderr?.on('data', (d: Buffer) => logs.push(d.toString()));
    procs.push(p);
  };
  // DNS only: every A query answers the namespace's address
  start(CHALLTESTSRV, [
    '-defaultIPv4', o.address, '-defaultIPv6', '', '-dns01', `127.0.0.1:${dnsPort}`,
    '-http01', '', '-https01', '', '-tlsalpn01', '', '-management', `127.0.0.1:${dnsMgmtPort}`,
  ]); // prettier-ignore
  // no random pauses before validating, and no nonces refused at random (pebble's defaults test
  // clients against those; this test is about Caddy getting a certificate at all)
  start(PEBBLE, ['-config', join(dir, 'pebble.json'), '-dnsserver', `127.0.0.1:${dnsPort}`], {
    PEBBLE_VA_NOSLEEP: '1',
    PEBBLE_WFE_NONCEREJECT: '0',
  });
  const get = (path: string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const req = request(
        `https://${o.address}:${mgmtPort}${path}`,
        { ca: listener.pem, servername: listener.host },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  const deadline = Date.now() + 20_000;
  while ((await get('/roots/0').catch(() => undefined))?.status !== 200) {
    if (Date.now() > deadline || procs.some((p) => p.exitCode !== null))
      throw new Error(`pebble did not start: ${logs.join('')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    directory: `https://${o.address}:${acmePort}/dir`,
    listenerCaPath: listener.certPath,
    root: async () => (await get('/roots/0')).text,
    logs,
    async stop() {
      const running = procs.filter((p) => p.exitCode === null);
      const exited = running.map((p) => new Promise((r) => p.once('exit', r)));
      for (const p of running) p.kill('SIGTERM');
      await Promise.all(exited);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
