/**
 * TURN over TLS for a "corporate" viewer: in the test namespace nftables drops every UDP packet
 * but the engine's (MOUTHPIECE_ENGINE_MIN_PORT..MAX_PORT) and coturn's relay ports', and resets
 * plain TCP to the TURN port; only TCP to the TLS port gets through. Chromium, relay-only, is
 * given init-client's iceServers and must connect over `turns:` (a self-signed certificate made
 * with openssl) and play audio and video.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { launchBrowser, selectedLocalCandidate, type TestBrowser } from './harness/browser.js';
import { freePort, startServer, type TestServer } from './harness/server.js';

const TABLE = 'mpturntls';
const ENGINE_PORTS = [20000, 20099] as const;
const RELAY_PORTS = [21000, 21099] as const;

let server: TestServer | undefined;
let browser: TestBrowser | undefined;
let certDir: string | undefined;
afterEach(async () => {
  spawnSync('nft', ['delete', 'table', 'inet', TABLE]);
  await browser?.close();
  await server?.stop();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
  browser = server = certDir = undefined;
});

/** A self-signed certificate for the TURN host's address. */
function selfSigned(dir: string, ip: string): { cert: string; key: string } {
  const cert = join(dir, 'turn-cert.pem');
  const key = join(dir, 'turn-key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', `/CN=${ip}`,
    '-addext', `subjectAltName=IP:${ip}`, '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' }); // prettier-ignore
  return { cert, key };
}

/** The corporate firewall, on this namespace's output hook (the host's network is never touched). */
function blockAllButTls(turnPort: number): void {
  const rules = [
    `add table inet ${TABLE}`,
    `add chain inet ${TABLE} out { type filter hook output priority 0; policy accept; }`,
    `add rule inet ${TABLE} out udp sport ${ENGINE_PORTS[0]}-${ENGINE_PORTS[1]} accept`,
    `add rule inet ${TABLE} out udp sport ${RELAY_PORTS[0]}-${RELAY_PORTS[1]} accept`,
    `add rule inet ${TABLE} out meta l4proto udp counter drop`,
    `add rule inet ${TABLE} out tcp dport ${turnPort} counter reject with tcp reset`,
  ];
  execFileSync('nft', ['-f', '-'], { input: rules.join('\n') + '\n' });
}

it('a relay-only viewer behind a firewall that lets only TLS through connects over turns: and plays', async () => {
  if (process.env['MOUTHPIECE_E2E_NETNS'] !== '1')
    throw new Error(
      'this test changes nftables rules: run it inside the test network namespace (MOUTHPIECE_E2E_NETNS=1 ip netns exec NAME ..., as scripts/test.sh does)',
    );
  certDir = mkdtempSync(join(tmpdir(), 'mp-turn-tls-'));
  const host = '10.99.0.2'; // the namespace's address (scripts/netns.sh)
  const { cert, key } = selfSigned(certDir, host);
  const [turnPort, tlsPort] = [await freePort(), await freePort()];
  server = await startServer({
    MOUTHPIECE_TURN: 'managed',
    MOUTHPIECE_TURN_PORT: String(turnPort),
    MOUTHPIECE_TURN_TLS_PORT: String(tlsPort),
    MOUTHPIECE_TURN_TLS_CERT: cert,
    MOUTHPIECE_TURN_TLS_KEY: key,
    MOUTHPIECE_TURN_MIN_PORT: String(RELAY_PORTS[0]),
    MOUTHPIECE_TURN_MAX_PORT: String(RELAY_PORTS[1]),
    MOUTHPIECE_ENGINE_MIN_PORT: String(ENGINE_PORTS[0]),
    MOUTHPIECE_ENGINE_MAX_PORT: String(ENGINE_PORTS[1]),
  });
  expect(server.logs.join('')).toContain(
    `TURN relay ports    ${RELAY_PORTS[0]}-${RELAY_PORTS[1]} (100 ports`,
  );
  const { sessionId, token } = await server.createSession();
  const init = await server.initClient(sessionId, token);
  const turnsUrl = `turns:${host}:${tlsPort}?transport=tcp`;
  expect(init.turn.urls).toEqual([
    `turn:${host}:${turnPort}?transport=udp`,
    `turn:${host}:${turnPort}?transport=tcp`,
    turnsUrl,
  ]);
  expect((init.turn as { url?: string }).url).toBe(host); // the spec's host form
  blockAllButTls(turnPort);
  // Chromium checks a TURN server's certificate like a web server's: a self-signed one is accepted
  // only with certificate errors ignored (a real deployment uses a certificate for its TURN host)
  browser = await launchBrowser({ args: ['--ignore-certificate-errors'] });
  const page = await browser.newPage(server.url);
  const r = await page.evaluate(
    ({ whepUrl, iceServers }) => window.mpTest.connect({ whepUrl, iceServers, relay: true }),
    { whepUrl: init.whepUrl, iceServers: init.iceServers },
  );
  expect(r.status).toBe(201);
  const playing = await page.evaluate(() =>
    window.mpTest.waitFor(async () => {
      const s = await window.mpTest.stats();
      return s.framesDecoded >= 10 && s.audioPackets >= 10;
    }, 30000),
  );
  expect(playing).toBe(true);
  const local = await selectedLocalCandidate(page);
  expect(local).toEqual({ candidateType: 'relay', relayProtocol: 'tls', url: turnsUrl });
  // the firewall was in the way: UDP and plain TCP to TURN were tried and stopped
  const counters = execFileSync('nft', ['list', 'table', 'inet', TABLE], { encoding: 'utf8' });
  expect([...counters.matchAll(/counter packets (\d+)/g)].map((m) => Number(m[1]) > 0)).toEqual([true, true]);
});
