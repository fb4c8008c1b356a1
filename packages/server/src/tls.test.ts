/**
 * The server speaking HTTPS itself (MOUTHPIECE_TLS_CERT/_KEY): the settings' rules, and the real
 * app listening with a self-signed certificate (openssl) for a client that trusts it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type Server as HttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { createTestApp, type TestApp } from './testing/test-app.js';
import { reloadTlsOnChange } from './tls-files.js';

let dir: string;
let cert: string;
let key: string;
let t: TestApp | undefined;

beforeAll(() => {
  if (!existsSync('/usr/bin/openssl'))
    throw new Error('/usr/bin/openssl is missing: apt-get install openssl (.ci/run installs it)');
  dir = mkdtempSync(join(tmpdir(), 'mp-tls-'));
  cert = join(dir, 'cert.pem');
  key = join(dir, 'key.pem');
  makeCert('localhost');
});

/** A self-signed certificate for `localhost` named `cn`, written over cert.pem and key.pem. */
function makeCert(cn: string): void {
  const made = spawnSync('/usr/bin/openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', key, '-out', cert, '-days', '2', '-subj', `/CN=${cn}`,
    '-addext', 'subjectAltName=DNS:localhost',
  ]); // prettier-ignore
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
}

/** GET /healthz over HTTPS trusting only `ca`: the status and the served certificate's CN. */
function getSecure(port: number, ca: Buffer): Promise<{ status: number; cn: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', servername: 'localhost', port, path: '/healthz', ca, agent: false },
      (res) => {
        const cn = (res.socket as TLSSocket).getPeerCertificate().subject.CN ?? '';
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, cn }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('MOUTHPIECE_TLS_CERT and MOUTHPIECE_TLS_KEY', () => {
  it('go together, name a readable file, and are for a single node', () => {
    expect(() => loadConfig({ MOUTHPIECE_TLS_CERT: cert })).toThrow(
      'MOUTHPIECE_TLS_CERT and MOUTHPIECE_TLS_KEY go together: set both to PEM files',
    );
    expect(() =>
      loadConfig({ MOUTHPIECE_TLS_CERT: cert, MOUTHPIECE_TLS_KEY: join(dir, 'nope.pem') }),
    ).toThrow(/^MOUTHPIECE_TLS_KEY: cannot read ".*nope\.pem" \(ENOENT.*give a PEM file$/);
    expect(() =>
      loadConfig({
        MOUTHPIECE_TLS_CERT: cert,
        MOUTHPIECE_TLS_KEY: key,
        MOUTHPIECE_REDIS_URL: 'redis://r:6379',
      }),
    ).toThrow('MOUTHPIECE_TLS_CERT is for a single node');
    expect(loadConfig({}).tls).toBeUndefined();
    expect(loadConfig({ MOUTHPIECE_TLS_CERT: cert, MOUTHPIECE_TLS_KEY: key, PORT: '8443' }).publicUrl).toBe(
      'https://localhost:8443',
    );
    expect(loadConfig({ MOUTHPIECE_TLS_CERT: cert, MOUTHPIECE_TLS_KEY: key }).tls).toEqual({
      cert: readFileSync(cert, 'utf8'),
      key: readFileSync(key, 'utf8'),
      files: { cert, key },
    });
  });

  it('the app answers over HTTPS to a client that trusts the certificate, and not over plain HTTP', async () => {
    const tls = loadConfig({ MOUTHPIECE_TLS_CERT: cert, MOUTHPIECE_TLS_KEY: key }).tls;
    t = await createTestApp({ config: { tls } });
    const app: FastifyInstance = t.app;
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const secure = await new Promise<{ status: number; body: string; authorized: boolean }>(
      (resolve, reject) => {
        const req = httpsRequest(
          { host: '127.0.0.1', servername: 'localhost', port, path: '/healthz', ca: readFileSync(cert) },
          (res) => {
            const authorized = (res.socket as { authorized?: boolean }).authorized === true;
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body, authorized }));
          },
        );
        req.on('error', reject);
        req.end();
      },
    );
    expect(secure.status).toBe(200);
    expect(secure.authorized).toBe(true);
    expect(() => JSON.parse(secure.body) as unknown).not.toThrow();
    const plain = await new Promise<string>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/healthz' }, (res) =>
        resolve(`answered ${res.statusCode}`),
      );
      req.on('error', (err) => resolve(`failed: ${err.message}`));
      req.setTimeout(5000, () => req.destroy(new Error('no answer')));
      req.end();
    });
    expect(plain).not.toBe('answered 200');
  });

  it('serves a renewed certificate from the next connection on, without a restart', async () => {
    const config = loadConfig({ MOUTHPIECE_TLS_CERT: cert, MOUTHPIECE_TLS_KEY: key });
    const app = (await createTestApp({ config: { tls: config.tls } })).app;
    await app.listen({ port: 0, host: '127.0.0.1' });
    const logs: string[] = [];
    const log = {
      info: (_: object, m: string) => logs.push(m),
      warn: (_: object, m: string) => logs.push(m),
    };
    const stop = reloadTlsOnChange(app.server as HttpsServer, config.tls!.files, log, 100);
    try {
      const { port } = app.server.address() as { port: number };
      expect((await getSecure(port, readFileSync(cert))).cn).toBe('localhost');
      makeCert('renewed');
      const renewed = readFileSync(cert);
      let answer = { status: 0, cn: '' };
      for (const deadline = Date.now() + 15_000; answer.cn !== 'renewed' && Date.now() < deadline;) {
        await new Promise((r) => setTimeout(r, 200));
        answer = await getSecure(port, renewed).catch(() => ({ status: 0, cn: '' }));
      }
      expect(answer).toEqual({ status: 200, cn: 'renewed' });
      expect(logs).toContain('TLS certificate reloaded');
    } finally {
      stop();
      await app.close();
    }
  });
});
