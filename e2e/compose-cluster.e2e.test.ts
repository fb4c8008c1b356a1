/**
 * compose.yaml's cluster profile as an operator starts it (docs/deploy.md, "Container"):
 * `docker-compose --profile cluster up -d node-a node-b` brings up two Mouthpiece nodes, Redis
 * (deploy/redis/Dockerfile) and one coturn with the nodes' shared TURN secret. A credential made
 * with the CLI inside node-a creates a session through node-b; a relay-only Chromium viewer gets
 * its ICE servers through node-a, connects through the compose coturn and plays while node-b is
 * told to speak.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchBrowser, selectedLocalCandidate, type TestBrowser } from './harness/browser.js';
import { requireCompose, startCompose, untilAnswers, type ComposeProject } from './harness/compose.js';
import { IMAGE, requireImage } from './harness/container.js';
import { requireE2eEnvironment } from './harness/server.js';

const HOST = process.env['MOUTHPIECE_E2E_NETNS'] === '1' ? '10.99.0.2' : '127.0.0.1';
const A = `http://${HOST}:8081`; // compose.yaml's node ports
const B = `http://${HOST}:8082`;

let project: ComposeProject | undefined;
let browser: TestBrowser | undefined;

beforeAll(async () => {
  requireE2eEnvironment();
  requireImage(IMAGE);
  requireImage('localhost/mouthpiece-redis:latest');
  requireCompose();
  project = await startCompose(`mp-e2e-${process.pid}`, {
    MOUTHPIECE_TURN_SECRET: randomBytes(24).toString('base64url'),
    MOUTHPIECE_ADMIN_TOKEN: randomBytes(32).toString('base64url'),
    NODE_A_PUBLIC_URL: A,
    NODE_B_PUBLIC_URL: B,
    // coturn on the namespace's address, handed to browsers as the TURN host (README.md, "Production notes")
    MOUTHPIECE_TURN_HOST: HOST,
    MOUTHPIECE_TURN_LISTEN_IP: HOST,
  });
  project.run(['up', '-d', '--no-build', 'node-a', 'node-b']);
  await untilAnswers(project, `${A}/readyz`);
  await untilAnswers(project, `${B}/readyz`);
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await project?.down();
}, 60_000);

const post = (url: string, auth: string, body: unknown): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

it('Redis runs as its own user with the AOF on and eviction off, as docs/cluster.md asks', () => {
  const out = project!.run([
    'exec',
    '-T',
    'redis',
    'sh',
    '-c',
    'id -u; redis-cli config get appendonly; redis-cli config get maxmemory-policy',
  ]);
  const [uid, ...config] = out.trim().split('\n');
  expect(uid).not.toBe('0');
  expect(config).toEqual(['appendonly', 'yes', 'maxmemory-policy', 'noeviction']);
});

it("a CLI credential on node-a creates a session on node-b; a relay-only viewer plays through compose's coturn", async () => {
  const { secret } = JSON.parse(
    project!.run([
      'exec',
      '-T',
      'node-a',
      'mouthpiece',
      'credentials',
      'create',
      '--name',
      'compose',
      '--json',
    ]),
  ) as { secret: string };
  const created = await post(`${B}/v1/avatar-session`, `KS ${secret}`, {
    visualConfig: { avatarId: 'amara' },
    voiceConfig: { id: 'en-us-female' },
  });
  expect(created.status).toBe(200);
  const { sessionId, token } = (await created.json()) as { sessionId: string; token: string };
  const init = await post(`${A}/v1/avatar-session/${sessionId}/init-client`, `Bearer ${token}`, {});
  expect(init.status).toBe(200);
  const { whepUrl, iceServers, turn } = (await init.json()) as {
    whepUrl: string;
    iceServers: unknown[];
    turn: { urls: string[] };
  };
  expect(turn.urls).toContain(`turn:${HOST}:3479?transport=udp`);

  const page = await browser!.newPage(A);
  const r = await page.evaluate(
    ({ whepUrl, iceServers }) => window.mpTest.connect({ whepUrl, iceServers, relay: true }),
    { whepUrl, iceServers },
  );
  expect(r.status).toBe(201);
  const said = await post(`${B}/v1/avatar-session/${sessionId}/say-text`, `Bearer ${token}`, {
    text: 'Two nodes, one Redis, one relay.',
    turnId: 'compose-1',
  });
  expect(said.status).toBe(200);
  const playing = await page.evaluate(() =>
    window.mpTest.waitFor(async () => {
      const s = await window.mpTest.stats();
      return s.framesDecoded >= 25 && s.audioPackets >= 50;
    }, 30000),
  );
  expect(playing).toBe(true);
  expect((await selectedLocalCandidate(page)).candidateType).toBe('relay');
  await page.close();
  expect((await post(`${A}/v1/avatar-session/${sessionId}/end`, `Bearer ${token}`, {})).status).toBe(200);
}, 120_000);
