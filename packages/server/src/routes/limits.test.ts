import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/test-app.js';

let t: TestApp;
afterEach(async () => t?.close());

describe('limits', () => {
  it('per-session rate limit → 429 RATE_LIMITED with Retry-After; recovers with time', async () => {
    t = await createTestApp({ limits: { requestsPerSecond: 100 } }); // session limit 10/s, burst 20
    const { sessionId, token } = await t.createSession();
    const codes: number[] = [];
    for (let i = 0; i < 25; i++)
      codes.push((await t.post(`/v1/avatar-session/${sessionId}/keep-alive`, token)).statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(20);
    const limited = await t.post(`/v1/avatar-session/${sessionId}/keep-alive`, token);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ success: false, error: 'Too many requests', code: 'RATE_LIMITED' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    t.clock.advance(1000);
    expect((await t.post(`/v1/avatar-session/${sessionId}/keep-alive`, token)).statusCode).toBe(200);
  });

  it('per-credential rate limit on create', async () => {
    t = await createTestApp({ limits: { requestsPerSecond: 2, maxSessions: 100 } });
    const results: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/avatar-session',
        headers: { authorization: `KS ${t.secret}` },
        payload: { visualConfig: { avatarId: 'amara' } },
      });
      results.push(res.statusCode);
    }
    expect(results).toEqual([200, 200, 200, 200, 429, 429]);
  });

  it('credential concurrent-session limit → 429 SESSION_LIMIT; ending one frees a slot', async () => {
    t = await createTestApp({ limits: { maxSessions: 2 } });
    const a = await t.createSession();
    await t.createSession();
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/avatar-session',
      headers: { authorization: `KS ${t.secret}` },
      payload: { visualConfig: { avatarId: 'amara' } },
    });
    expect(res.statusCode).toBe(429);
    expect(res.json().code).toBe('SESSION_LIMIT');
    await t.post(`/v1/avatar-session/${a.sessionId}/end`, a.token);
    await t.createSession();
  });

  it('server capacity → 503 SERVER_BUSY with Retry-After', async () => {
    t = await createTestApp({ config: { maxSessions: 1 } });
    await t.createSession();
    const other = t.addCredential();
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/avatar-session',
      headers: { authorization: `KS ${other.secret}` },
      payload: { visualConfig: { avatarId: 'amara' } },
    });
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe('SERVER_BUSY');
    expect(res.headers['retry-after']).toBeDefined();
  });

  it('revoking a credential ends its sessions (credential_revoked) and refuses it', async () => {
    t = await createTestApp();
    const a = await t.createSession();
    const other = t.addCredential();
    const b = await t.createSession(undefined, other.secret);
    await t.stores.credentials.revoke(t.credential.id, t.clock.now());
    t.clock.advance(1000);
    await new Promise((r) => setImmediate(r));
    expect((await t.post(`/v1/avatar-session/${a.sessionId}/keep-alive`, a.token)).statusCode).toBe(410);
    expect((await t.stores.sessions.get(a.sessionId))?.endReason).toBe('credential_revoked');
    expect((await t.post(`/v1/avatar-session/${b.sessionId}/keep-alive`, b.token)).statusCode).toBe(200);
    const create = await t.app.inject({
      method: 'POST',
      url: '/v1/avatar-session',
      headers: { authorization: `KS ${t.secret}` },
      payload: { visualConfig: { avatarId: 'amara' } },
    });
    expect(create.statusCode).toBe(401);
  });

  it('a full speech queue → 429 QUEUE_FULL', async () => {
    t = await createTestApp();
    const { sessionId, token } = await t.createSession();
    let last = 200;
    for (let i = 0; i < 101 && last === 200; i++) {
      last = (
        await t.post(`/v1/avatar-session/${sessionId}/say-text`, token, {
          text: 'x',
          turnId: `t${i}`,
          isFinal: false,
        })
      ).statusCode;
    }
    expect(last).toBe(429);
  });
});
