/**
 * The session event stream with real `mouthpiece serve` processes and their engine processes, in
 * cluster mode on a real redis-server: a backend reads `GET …/events` from the node holding the
 * session and, at once, through another node; a page plays the avatar in Chromium while say-text
 * speaks. Both streams carry the same events with the same ids: the viewer connecting, the turn's
 * start, its words (espeak gives timings) and its end, then sessionEnded, and they close. Nodes
 * stopping with streams open neither hang nor keep a forwarded stream's place at the holder.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './harness/browser.js';
import { createSession, startCluster, type ClusterNode, type TestCluster } from './harness/cluster.js';
import { requireE2eEnvironment } from './harness/server.js';
import { SseReader } from '../packages/server/src/testing/sse-reader.js';

/** The page's test client (page-client.js), named inside page functions (they run in the page). */
type Win = { mpTest: { connect(o: { whepUrl: string }): Promise<{ status: number }> } };

describe('session events from real servers', () => {
  let c: TestCluster;
  let browser: TestBrowser;
  let a: ClusterNode;
  let b: ClusterNode;

  beforeAll(async () => {
    requireE2eEnvironment();
    c = await startCluster([{ id: 'node-a' }, { id: 'node-b' }]);
    [a, b] = c.nodes as [ClusterNode, ClusterNode];
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await c?.close();
  });

  const events = async (node: ClusterNode, s: { sessionId: string; token: string }, headers = {}) => {
    const res = await fetch(`${node.url}/v1/avatar-session/${s.sessionId}/events`, {
      headers: { authorization: `Bearer ${s.token}`, ...headers },
    });
    return res;
  };

  it('a turn played to a page: the same events, ids and end at the holder and through another node', async () => {
    const { secret } = c.createCredential();
    const s = await createSession(a, secret);
    expect(s.servedBy).toBe('node-a');
    const direct = new SseReader(await events(a, s));
    const viaB = await events(b, s);
    expect(viaB.status).toBe(200);
    expect(viaB.headers.get('x-mouthpiece-node-via')).toBe('node-b');
    expect(viaB.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const forwarded = new SseReader(viaB);

    const init = await b.api(`/v1/avatar-session/${s.sessionId}/init-client`, { token: s.token, json: {} });
    const { whepUrl } = (await init.json()) as { whepUrl: string };
    const page = await browser.newPage(a.url);
    const r = await page.evaluate(
      (url) => (window as unknown as Win).mpTest.connect({ whepUrl: url }),
      whepUrl,
    );
    expect(r.status).toBe(201);
    const say = await b.api(`/v1/avatar-session/${s.sessionId}/say-text`, {
      token: s.token,
      json: { text: 'Hello from the event stream. How are you today?', turnId: 't1' },
    });
    expect(say.status).toBe(200);

    const ended = (x: SseReader) => x.events().some((e) => e?.type === 'speakingEnd');
    await direct.until(ended);
    await forwarded.until(ended);
    const seen = direct.events();
    expect(seen[0]).toEqual({ type: 'viewer', state: 'connected' });
    expect(seen[1]).toEqual({ type: 'speakingStart', turnId: 't1' });
    expect(seen.at(-1)).toEqual({ type: 'speakingEnd', turnId: 't1', interrupted: false });
    const words = seen.slice(2, -1).map((e) => (e?.type === 'word' ? e : undefined));
    expect(words.length).toBeGreaterThanOrEqual(8);
    expect(words.every((w) => w !== undefined)).toBe(true);
    expect(words.map((w) => w!.text.replace(/[^a-z]/gi, '').toLowerCase())).toEqual(
      expect.arrayContaining(['hello', 'event', 'stream', 'today']),
    );
    const offsets = words.map((w) => w!.offsetMs);
    expect(offsets).toEqual([...offsets].sort((x, y) => x - y));
    expect(offsets.at(-1)).toBeGreaterThan(1000); // two sentences: well over a second in
    expect(direct.messages.map((m) => m.id)).toEqual(seen.map((_e, i) => i + 1));

    // a reader that lost its connection picks up where it was, through either node
    const resumed = new SseReader(await events(b, s, { 'last-event-id': String(seen.length - 1) }));
    await resumed.count(1);
    expect(resumed.messages[0]).toMatchObject({ id: seen.length, type: 'speakingEnd' });

    // a bad Last-Event-ID is the holder's 400, passed back through B as JSON
    const bad = await events(b, s, { 'last-event-id': 'yesterday' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ success: false, code: 'INVALID_REQUEST' });

    const end = await b.api(`/v1/avatar-session/${s.sessionId}/end`, { token: s.token, json: {} });
    expect(end.status).toBe(200);
    for (const x of [direct, forwarded, resumed]) {
      await x.toEnd();
      expect(x.events().at(-1)).toEqual({ type: 'sessionEnded', reason: 'ended_by_client' });
    }
    expect(forwarded.messages).toEqual(direct.messages);
    const after = await events(b, s);
    expect(after.status).toBe(410);
    expect(await after.json()).toMatchObject({ code: 'SESSION_ENDED', reason: 'ended_by_client' });
    await page.close();
  }, 90_000);

  it('nodes stopping with streams open: the forwarding node lets go, the holder ends them server_restart', async () => {
    // the page's own connections would hold a closing server as long as they live: gone first
    await browser.close();
    const { secret } = c.createCredential();
    const s = await createSession(a, secret);
    const direct = new SseReader(await events(a, s));
    const viaB = new SseReader(await events(b, s));
    await viaB.until((x) => x.comments.length > 0); // the stream runs through B
    await b.stop(); // SIGTERM: a node that waited for the stream would be SIGKILLed after 8 s
    expect(b.proc.signalCode, b.logs.join('').slice(-3000)).not.toBe('SIGKILL');
    await viaB.toEnd().catch(() => undefined); // cut: its reader would reconnect through another node
    // the holder freed the forwarded stream's place: three more fit beside the direct one
    const more = await Promise.all([1, 2, 3].map(() => events(a, s)));
    expect(more.map((r) => r.status)).toEqual([200, 200, 200]);
    const readers = more.map((r) => new SseReader(r));
    await a.stop();
    expect(a.proc.signalCode, a.logs.join('').slice(-4000)).not.toBe('SIGKILL');
    for (const x of [direct, ...readers]) {
      await x.toEnd();
      expect(x.events()).toEqual([{ type: 'sessionEnded', reason: 'server_restart' }]);
    }
  }, 60_000);
});
