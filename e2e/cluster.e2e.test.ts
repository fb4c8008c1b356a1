/**
 * Cluster mode with a real redis-server and real `mouthpiece serve` processes (docs/cluster.md):
 * any node serves any session, limits and revocations hold across nodes, placement spills over, a
 * killed node's sessions end `node_failed` everywhere while the others go on, and Redis restarts
 * and outages lose nothing.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createSession, startCluster, until, type ClusterNode, type TestCluster } from './harness/cluster.js';
import { readMetrics } from './harness/server.js';

const ADMIN = 'cluster-admin-token-of-at-least-32-characters';

const keepAlive = (node: ClusterNode, s: { sessionId: string; token: string }): Promise<Response> =>
  node.api(`/v1/avatar-session/${s.sessionId}/keep-alive`, { token: s.token, json: {} });

/** The reason of a 410, or undefined while the session still answers otherwise. */
async function endedReason(
  node: ClusterNode,
  s: { sessionId: string; token: string },
): Promise<string | undefined> {
  const r = await keepAlive(node, s);
  if (r.status !== 410) return undefined;
  return ((await r.json()) as { reason: string }).reason;
}

describe('cluster: three nodes on one Redis', () => {
  let c: TestCluster;
  let secret: string;
  let a: ClusterNode;
  let b: ClusterNode;
  let third: ClusterNode;

  beforeAll(async () => {
    c = await startCluster([{ id: 'node-a' }, { id: 'node-b' }, { id: 'node-c' }], {
      env: { MOUTHPIECE_ADMIN_TOKEN: ADMIN },
    });
    [a, b, third] = c.nodes as [ClusterNode, ClusterNode, ClusterNode];
    secret = c.createCredential().secret;
  });
  afterAll(async () => {
    await c?.close();
  });

  it('a credential made with the CLI works on every node', async () => {
    for (const node of [a, b, third]) {
      const s = await createSession(node, secret);
      expect(s.servedBy).toBe(node.id); // each has room: the receiving node holds it
      const r = await node.api(`/v1/avatar-session/${s.sessionId}/end`, { token: s.token, json: {} });
      expect(r.status).toBe(200);
    }
  });

  it('a session made on A is spoken to, kept alive, interrupted and ended through B', async () => {
    const s = await createSession(a, secret);
    const init = await b.api(`/v1/avatar-session/${s.sessionId}/init-client`, { token: s.token, json: {} });
    expect(init.status).toBe(200);
    expect(init.headers.get('x-mouthpiece-node')).toBe('node-a'); // answered by the owner
    expect(init.headers.get('x-mouthpiece-node-via')).toBe('node-b');
    const { whepUrl } = (await init.json()) as { whepUrl: string };
    expect(whepUrl.startsWith(`${a.url}/v1/avatar-session/${s.sessionId}/whep`)).toBe(true);

    const say = await b.api(`/v1/avatar-session/${s.sessionId}/say-text`, {
      token: s.token,
      json: { text: 'Hello from the other node.', turnId: 't1' },
    });
    expect(say.status).toBe(200);
    expect((await keepAlive(b, s)).status).toBe(200);
    // an upload streams through B to A, which decodes it
    const mp3 = readFileSync(
      new URL('../packages/engine/test-fixtures/audio/speech-44k.mp3', import.meta.url),
    );
    const form = new FormData();
    form.append('turnId', 'upload-1');
    form.append('duration', '1.6');
    form.append('audio', new Blob([mp3], { type: 'audio/mpeg' }), 'speech.mp3');
    const upload = await b.api(`/v1/avatar-session/${s.sessionId}/say-audio`, { token: s.token, body: form });
    expect(upload.status).toBe(200);
    expect(upload.headers.get('x-mouthpiece-node')).toBe('node-a');
    expect(((await upload.json()) as { decodedDuration: number }).decodedDuration).toBeGreaterThan(1);
    const stop = await b.api(`/v1/avatar-session/${s.sessionId}/interrupt`, { token: s.token, json: {} });
    expect(stop.status).toBe(200);
    // a bad body gets the owner's 400, unchanged
    const bad = await b.api(`/v1/avatar-session/${s.sessionId}/say-text`, {
      token: s.token,
      json: { text: 5 },
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ success: false, code: 'INVALID_REQUEST' });
    // another session's token: the owner's 403
    const other = await createSession(b, secret);
    const forbidden = await b.api(`/v1/avatar-session/${s.sessionId}/keep-alive`, {
      token: other.token,
      json: {},
    });
    expect(forbidden.status).toBe(403);

    const end = await b.api(`/v1/avatar-session/${s.sessionId}/end`, { token: s.token, json: {} });
    expect(end.status).toBe(200);
    for (const node of [a, b, third]) expect(await endedReason(node, s)).toBe('ended_by_client');
    await b.api(`/v1/avatar-session/${other.sessionId}/end`, { token: other.token, json: {} });
    const metrics = await readMetrics(b.url);
    expect(metrics).toMatch(/mouthpiece_cluster_forwarded_total\{kind="session"\} [1-9]/);
    expect(metrics).toMatch(/mouthpiece_cluster_nodes 3\b/);
    expect(metrics).toMatch(/mouthpiece_cluster_redis_up 1\b/);
  });

  it('a view-only page’s calls (the viewer token) go through another node: watched and kept alive, never spoken', async () => {
    const s = await createSession(a, secret);
    const viaB = (call: string, json: unknown = {}) =>
      b.api(`/v1/avatar-session/${s.sessionId}/${call}`, { token: s.viewerToken, json });
    const init = await viaB('init-client');
    expect(init.status).toBe(200);
    expect(init.headers.get('x-mouthpiece-node')).toBe('node-a'); // the owner checked it
    const { whepUrl } = (await init.json()) as { whepUrl: string };
    expect(new URL(whepUrl).searchParams.get('vt')).toBe(s.viewerToken);
    expect((await viaB('keep-alive')).status).toBe(200);
    const say = await viaB('say-text', { text: 'Not from a page.' });
    expect(say.status).toBe(403);
    expect(await say.json()).toMatchObject({ code: 'FORBIDDEN' });
    expect((await viaB('end')).status).toBe(403);
    expect((await keepAlive(third, s)).status).toBe(200); // still alive
    await a.api(`/v1/avatar-session/${s.sessionId}/end`, { token: s.token, json: {} });
  });

  it("the audio WebSocket opens on the session's node; another node answers 503 saying so", async () => {
    const s = await createSession(a, secret);
    const upgrade = (node: ClusterNode) =>
      new Promise<{ status: number; body: string }>((resolve) => {
        const ws = new WebSocket(
          `${node.url.replace(/^http/, 'ws')}/v1/avatar-session/${s.sessionId}/audio`,
          {
            headers: { authorization: `Bearer ${s.token}` },
          },
        );
        ws.on('open', () => {
          ws.close();
          resolve({ status: 101, body: '' });
        });
        ws.on('unexpected-response', (_req, res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        ws.on('error', () => undefined);
      });
    expect((await upgrade(a)).status).toBe(101);
    const refused = await upgrade(b);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({ success: false, code: 'ENGINE_UNAVAILABLE' });
    expect(refused.body).toContain('audio WebSocket');
    await a.api(`/v1/avatar-session/${s.sessionId}/end`, { token: s.token, json: {} });
  });

  it("a session's avatar pack is read through another node: forwarded with its ETag, 304 and refusals", async () => {
    const s = await createSession(a, secret);
    const path = `/v1/avatar-session/${s.sessionId}/avatar`;
    const pack = await b.api(path, { method: 'GET', token: s.token });
    expect(pack.status).toBe(200);
    expect(pack.headers.get('x-mouthpiece-node')).toBe('node-a');
    expect(pack.headers.get('x-mouthpiece-node-via')).toBe('node-b');
    const etag = pack.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    expect(await pack.json()).toMatchObject({ success: true, avatar: { render: 'vector', files: [] } });
    const again = await b.api(path, { method: 'GET', token: s.token, headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('x-mouthpiece-node')).toBe('node-a');
    // the viewer token admits too; a name outside the pack is the owner's 404 body
    const init = await a.api(`/v1/avatar-session/${s.sessionId}/init-client`, { token: s.token, json: {} });
    const vt = new URL(((await init.json()) as { whepUrl: string }).whepUrl).searchParams.get('vt')!;
    expect((await third.api(`${path}?vt=${vt}`, { method: 'GET' })).status).toBe(200);
    const escape = await b.api(`${path}/..%2f..%2fetc%2fpasswd`, { method: 'GET', token: s.token });
    expect(escape.status).toBe(404);
    expect(await escape.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    await a.api(`/v1/avatar-session/${s.sessionId}/end`, { token: s.token, json: {} });
  });

  it("a credential's concurrent-session limit holds across nodes", async () => {
    const limited = c.createCredential(['--rps', '0', '--max-sessions', '2']).secret;
    const s1 = await createSession(a, limited);
    const s2 = await createSession(b, limited);
    const third1 = await third.api('/v1/avatar-session', {
      ks: limited,
      json: { visualConfig: { avatarId: 'amara' } },
    });
    expect(third1.status).toBe(429);
    expect(await third1.json()).toMatchObject({ code: 'SESSION_LIMIT' });
    await a.api(`/v1/avatar-session/${s1.sessionId}/end`, { token: s1.token, json: {} });
    const again = await createSession(third, limited); // a slot came free on another node
    for (const s of [s2, again])
      await b.api(`/v1/avatar-session/${s.sessionId}/end`, { token: s.token, json: {} });
  });

  it("a credential's requests per second share one budget across nodes", async () => {
    // 3 per second, bursts of 6: twenty requests at once, half to each node
    const limited = c.createCredential(['--rps', '3']).secret;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).api('/v1/avatars', { method: 'GET', ks: limited }),
      ),
    );
    const ok = answers.filter((r) => r.status === 200).length;
    const limitedCount = answers.filter((r) => r.status === 429).length;
    expect(ok + limitedCount).toBe(20);
    expect(ok).toBeGreaterThanOrEqual(6); // the burst
    expect(ok).toBeLessThan(12); // per-node buckets would let 6 through on each node
  });

  it('an admin on B force-ends a session A holds', async () => {
    const s = await createSession(a, secret);
    const r = await b.api(`/admin/v1/sessions/${s.sessionId}/end`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-mouthpiece-node')).toBe('node-a');
    for (const node of [a, b]) expect(await endedReason(node, s)).toBe('ended_by_admin');
  });

  it('revoking on B ends the sessions the credential holds on A', async () => {
    const cred = c.createCredential(['--rps', '0']);
    const onA = await createSession(a, cred.secret);
    const onC = await createSession(third, cred.secret);
    const bystander = await createSession(a, secret);
    const admin = await b.api(`/admin/v1/credentials/${cred.id}/revoke`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(admin.status).toBe(200);
    for (const s of [onA, onC])
      expect(await until(() => endedReason(a, s), 'revocation reaches the owner')).toBe('credential_revoked');
    const refused = await a.api('/v1/avatar-session', {
      ks: cred.secret,
      json: { visualConfig: { avatarId: 'amara' } },
    });
    expect(refused.status).toBe(401);
    expect((await keepAlive(b, bystander)).status).toBe(200);
    await a.api(`/v1/avatar-session/${bystander.sessionId}/end`, { token: bystander.token, json: {} });
  });
});
