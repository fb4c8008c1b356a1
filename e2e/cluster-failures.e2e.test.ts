/**
 * Cluster mode when things fail (docs/cluster.md): placement when a node is full, a node killed
 * without a word, a Redis restart, and a node cut off from Redis. Real redis-server, real nodes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, startCluster, until, type ClusterNode, type TestCluster } from './harness/cluster.js';
import { readMetrics } from './harness/server.js';

type S = { sessionId: string; token: string };
const keepAlive = (node: ClusterNode, s: S): Promise<Response> =>
  node.api(`/v1/avatar-session/${s.sessionId}/keep-alive`, { token: s.token, json: {} });

async function endedReason(node: ClusterNode, s: S): Promise<string | undefined> {
  const r = await keepAlive(node, s);
  if (r.status !== 410) return undefined;
  return ((await r.json()) as { reason: string }).reason;
}

describe('cluster failures: two nodes of two sessions each', () => {
  let c: TestCluster;
  let secret: string;
  let a: ClusterNode;
  let b: ClusterNode;

  beforeAll(async () => {
    c = await startCluster([{ id: 'node-a' }, { id: 'node-b' }], { env: { MOUTHPIECE_MAX_SESSIONS: '2' } });
    [a, b] = c.nodes as [ClusterNode, ClusterNode];
    secret = c.createCredential().secret;
  });
  afterAll(async () => {
    await c?.close();
  });

  it('a full node places creates on the node with room; a full cluster answers 503 with Retry-After', async () => {
    const held: S[] = [];
    for (let i = 0; i < 2; i++) held.push(await createSession(a, secret));
    const spilled = await createSession(a, secret);
    expect(spilled.servedBy).toBe('node-b');
    // the session works from the node that received the create and from its holder
    expect((await keepAlive(a, spilled)).status).toBe(200);
    expect((await keepAlive(b, spilled)).status).toBe(200);
    held.push(spilled, await createSession(a, secret));
    const busy = await a.api('/v1/avatar-session', {
      ks: secret,
      json: { visualConfig: { avatarId: 'amara' } },
    });
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).not.toBeNull();
    expect(await busy.json()).toMatchObject({ success: false, code: 'SERVER_BUSY' });
    for (const s of held)
      expect(
        (await a.api(`/v1/avatar-session/${s.sessionId}/end`, { token: s.token, json: {} })).status,
      ).toBe(200);
  });

  it('a Redis restart loses no credential and no session record', async () => {
    const s = await createSession(b, secret);
    await c.redis.restart();
    const again = await until(async () => {
      const r = await a.api('/v1/avatar-session', {
        ks: secret,
        json: { visualConfig: { avatarId: 'amara' } },
      });
      return r.ok ? ((await r.json()) as S) : undefined;
    }, 'create after the Redis restart');
    expect((await keepAlive(a, s)).status).toBe(200); // forwarded to b: the record says b holds it
    for (const x of [s, again])
      await a.api(`/v1/avatar-session/${x.sessionId}/end`, { token: x.token, json: {} });
  });

  it('a node cut off from Redis keeps its live sessions, refuses creates, and rejoins', async () => {
    const s = await createSession(a, secret);
    await c.redis.stop();
    expect((await keepAlive(a, s)).status).toBe(200);
    const say = await a.api(`/v1/avatar-session/${s.sessionId}/say-text`, {
      token: s.token,
      json: { text: 'Still here.', turnId: 'r1' },
    });
    expect(say.status).toBe(200);
    const refused = await a.api('/v1/avatar-session', {
      ks: secret,
      json: { visualConfig: { avatarId: 'amara' } },
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    await c.redis.start();
    await until(async () => {
      const r = await b.api('/v1/avatar-session', {
        ks: secret,
        json: { visualConfig: { avatarId: 'amara' } },
      });
      if (!r.ok) return undefined;
      const x = (await r.json()) as S;
      await b.api(`/v1/avatar-session/${x.sessionId}/end`, { token: x.token, json: {} });
      return true;
    }, 'creates after Redis is back');
    expect((await keepAlive(b, s)).status).toBe(200); // the session survived the outage
    await a.api(`/v1/avatar-session/${s.sessionId}/end`, { token: s.token, json: {} });
  });

  it("killing A ends A's sessions (node_failed, 410 on B) while B's go on; restarting A does not bring them back", async () => {
    const onA = await createSession(a, secret);
    const onB = await createSession(b, secret);
    await a.kill();
    expect(await until(() => endedReason(b, onA), 'node_failed on b')).toBe('node_failed');
    expect((await keepAlive(b, onB)).status).toBe(200);
    expect(await readMetrics(b.url)).toMatch(/mouthpiece_cluster_nodes_reaped_total 1\b/);
    const say = await b.api(`/v1/avatar-session/${onB.sessionId}/say-text`, {
      token: onB.token,
      json: { text: 'The other node is gone.', turnId: 'k1' },
    });
    expect(say.status).toBe(200);
    const restarted = await c.startNode({ id: 'node-a', env: { MOUTHPIECE_MAX_SESSIONS: '2' } });
    expect(await endedReason(restarted, onA)).toBe('node_failed');
    expect((await keepAlive(restarted, onB)).status).toBe(200);
    await b.api(`/v1/avatar-session/${onB.sessionId}/end`, { token: onB.token, json: {} });
  });
});
