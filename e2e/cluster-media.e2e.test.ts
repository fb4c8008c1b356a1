/**
 * Cluster media in a real browser: two nodes, each in its own network namespace with its own
 * address, Redis and Chromium in the test's. A session held by node A is set up and spoken to
 * through node B; its whepUrl names A, and the browser's media arrives from A's address and plays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './harness/browser.js';
import { createSession, startCluster, type ClusterNode, type TestCluster } from './harness/cluster.js';
import { BRIDGE_IP, nodeNamespaces, type NodeNamespaces } from './harness/node-netns.js';
import { requireE2eEnvironment } from './harness/server.js';

interface PageTest {
  connect(o: { whepUrl: string }): Promise<{ status: number }>;
  stats(): Promise<{ framesDecoded: number; audioPackets: number }>;
  peakRms(ms: number): Promise<number>;
  waitFor(pred: () => unknown, ms?: number): Promise<boolean>;
  pc: RTCPeerConnection;
}
/** The page's test client (page-client.js), named inside page functions (they run in the page). */
type Win = { mpTest: PageTest };

describe('cluster media: WHEP comes from the node that holds the session', () => {
  let nets: NodeNamespaces;
  let c: TestCluster;
  let browser: TestBrowser;
  let a: ClusterNode;
  let b: ClusterNode;

  beforeAll(async () => {
    requireE2eEnvironment();
    nets = await nodeNamespaces(2);
    const [na, nb] = nets.nodes as [(typeof nets.nodes)[0], (typeof nets.nodes)[0]];
    c = await startCluster(
      [
        { id: 'node-a', wrap: na.wrap, host: na.host },
        { id: 'node-b', wrap: nb.wrap, host: nb.host },
      ],
      { redisHost: BRIDGE_IP },
    );
    [a, b] = c.nodes as [ClusterNode, ClusterNode];
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await c?.close();
    nets?.close();
  });

  it("a page talking to node B plays media sent from node A's address", async () => {
    expect(new URL(a.url).hostname).not.toBe(new URL(b.url).hostname);
    const { secret } = c.createCredential();
    const s = await createSession(a, secret);
    const init = await b.api(`/v1/avatar-session/${s.sessionId}/init-client`, { token: s.token, json: {} });
    expect(init.status).toBe(200);
    const { whepUrl } = (await init.json()) as { whepUrl: string };
    expect(new URL(whepUrl).origin).toBe(a.url);

    const page = await browser.newPage(b.url);
    const r = await page.evaluate(
      (url) => (window as unknown as Win).mpTest.connect({ whepUrl: url }),
      whepUrl,
    );
    expect(r.status).toBe(201);
    expect(
      await page.evaluate(() =>
        (window as unknown as Win).mpTest.waitFor(
          async () => (await (window as unknown as Win).mpTest.stats()).framesDecoded > 0,
          20000,
        ),
      ),
    ).toBe(true);
    // the selected ICE pair's remote end is node A's address
    const remote = await page.evaluate(async () => {
      const stats = await (window as unknown as Win).mpTest.pc.getStats();
      let pairId: string | undefined;
      stats.forEach((x: { type: string; selectedCandidatePairId?: string }) => {
        if (x.type === 'transport' && x.selectedCandidatePairId) pairId = x.selectedCandidatePairId;
      });
      const pair = pairId ? (stats.get(pairId) as { remoteCandidateId: string }) : undefined;
      return pair ? (stats.get(pair.remoteCandidateId) as { address: string }).address : null;
    });
    expect(remote).toBe(new URL(a.url).hostname);

    // spoken to through B: frames keep coming and the audio carries speech
    const before = await page.evaluate(() => (window as unknown as Win).mpTest.stats());
    const say = await b.api(`/v1/avatar-session/${s.sessionId}/say-text`, {
      token: s.token,
      json: { text: 'This voice comes from node A, asked through node B.', turnId: 'm1' },
    });
    expect(say.status).toBe(200);
    const peak = await page.evaluate(() => (window as unknown as Win).mpTest.peakRms(4000));
    const after = await page.evaluate(() => (window as unknown as Win).mpTest.stats());
    expect(after.framesDecoded).toBeGreaterThan(before.framesDecoded + 25);
    expect(after.audioPackets).toBeGreaterThan(before.audioPackets + 50);
    expect(peak).toBeGreaterThan(0.01);
    await page.close();
    const end = await b.api(`/v1/avatar-session/${s.sessionId}/end`, { token: s.token, json: {} });
    expect(end.status).toBe(200);
  });
});
