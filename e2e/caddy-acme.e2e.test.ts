/**
 * deploy/Caddyfile as committed gets its own certificate: Caddy (Debian's) in front of a real
 * server, its `tls EMAIL` site answered by a real ACME CA (Debian's pebble, Let's Encrypt's test
 * server) instead of Let's Encrypt, whose challenge reaches Caddy on its HTTP and HTTPS ports as
 * Let's Encrypt's would on 80 and 443. A backend then creates a session through it, trusting only
 * that CA's root.
 */
import { connect } from 'node:tls';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { requireAcmeTools, startAcme, type TestAcme } from './harness/acme.js';
import {
  httpsRequest,
  requireProxyTools,
  startProxy,
  type TestCertificate,
  type TestProxy,
} from './harness/https-proxy.js';
import { freePort, requireE2eEnvironment, startServer, type TestServer } from './harness/server.js';

const HOST = 'avatars.test';
const ADDRESS = process.env['MOUTHPIECE_E2E_NETNS'] === '1' ? '10.99.0.2' : '127.0.0.1';

let acme: TestAcme | undefined;
let server: TestServer | undefined;
let proxy: TestProxy | undefined;
let trust: TestCertificate;

beforeAll(async () => {
  requireE2eEnvironment();
  requireProxyTools(['caddy']);
  requireAcmeTools();
  const [port, httpPort] = [await freePort(), await freePort()];
  acme = await startAcme({ address: ADDRESS, httpPort, tlsPort: port });
  // what a client trusts: the CA's root only (no certificate of the test's own)
  trust = { host: HOST, certPath: '', keyPath: '', pem: await acme.root(), spki: '' };
  server = await startServer({
    MOUTHPIECE_TRUST_PROXY: '1',
    MOUTHPIECE_PUBLIC_URL: `https://${HOST}:${port}`,
  });
  proxy = await startProxy('caddy', {
    cert: trust,
    serverPort: Number(new URL(server.url).port),
    port,
    httpPort,
    address: ADDRESS,
    acme,
  });
}, 150_000);

afterAll(async () => {
  await proxy?.stop();
  await server?.stop();
  await acme?.stop();
});

/** The certificate Caddy serves for the site, checked against the CA's root and the host name. */
function servedCertificate(port: number): Promise<{ issuer: string; altNames: string; authorized: boolean }> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: ADDRESS, port, servername: HOST, ca: trust.pem }, () => {
      const cert = s.getPeerCertificate();
      resolve({
        issuer: cert.issuer.CN ?? '',
        altNames: cert.subjectaltname ?? '',
        authorized: s.authorized,
      });
      s.end();
    });
    s.once('error', reject);
  });
}

it('gets its certificate from the ACME CA for the site in deploy/Caddyfile, and serves the API with it', async () => {
  const served = await servedCertificate(proxy!.port);
  expect(served.authorized).toBe(true);
  expect(served.altNames).toBe(`DNS:${HOST}`);
  expect(served.issuer).toMatch(/^Pebble Intermediate CA/);

  const created = await httpsRequest(
    `${proxy!.url}/v1/avatar-session`,
    { cert: trust, address: ADDRESS },
    {
      method: 'POST',
      headers: { authorization: `KS ${server!.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ visualConfig: { avatarId: 'amara' }, voiceConfig: { id: 'en-us-female' } }),
    },
  );
  expect(created.status, created.text).toBe(200);
  const { sessionId, token } = JSON.parse(created.text) as { sessionId: string; token: string };
  const ended = await httpsRequest(
    `${proxy!.url}/v1/avatar-session/${sessionId}/end`,
    { cert: trust, address: ADDRESS },
    {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    },
  );
  expect(ended.status).toBe(200);
});
