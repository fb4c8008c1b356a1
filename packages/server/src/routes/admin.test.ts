import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/test-app.js';

let t: TestApp;
afterEach(async () => t?.close());

const ADMIN = 'admin-token-for-tests';

describe('admin API', () => {
  it('is closed without the admin token or an admin credential', async () => {
    t = await createTestApp({ config: { adminToken: ADMIN } });
    expect((await t.app.inject({ method: 'GET', url: '/admin/v1/credentials' })).statusCode).toBe(401);
    const wrong = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/credentials',
      headers: { authorization: 'Bearer nope' },
    });
    expect(wrong.statusCode).toBe(401);
    const plain = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/credentials',
      headers: { authorization: `KS ${t.secret}` },
    });
    expect(plain.statusCode).toBe(403);
    const admin = t.addCredential({ permissions: ['admin'] });
    const ok = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/credentials',
      headers: { authorization: `KS ${admin.secret}` },
    });
    expect(ok.statusCode).toBe(200);
  });

  it('Bearer admin is disabled when MOUTHPIECE_ADMIN_TOKEN is unset', async () => {
    t = await createTestApp();
    const res = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/credentials',
      headers: { authorization: 'Bearer ' },
    });
    expect(res.statusCode).toBe(401);
  });

  it('creates, lists and revokes credentials; revoking ends their sessions', async () => {
    t = await createTestApp({ config: { adminToken: ADMIN } });
    const h = { authorization: `Bearer ${ADMIN}` };
    const created = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/credentials',
      headers: h,
      payload: { name: 'acme', maxSessions: 2 },
    });
    expect(created.statusCode).toBe(200);
    const { credential, secret } = created.json();
    expect(credential).toMatchObject({ name: 'acme', status: 'active', limits: { maxSessions: 2 } });
    const s = await t.createSession(undefined, secret);
    const list = await t.app.inject({ method: 'GET', url: '/admin/v1/credentials', headers: h });
    expect(list.body).not.toContain(secret);
    expect(list.json().credentials).toHaveLength(2);
    const sessions = (await t.app.inject({ method: 'GET', url: '/admin/v1/sessions', headers: h })).json()
      .sessions;
    expect(sessions.map((x: { sessionId: string }) => x.sessionId)).toEqual([s.sessionId]);
    const revoke = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/credentials/${credential.id}/revoke`,
      headers: h,
    });
    expect(revoke.json()).toMatchObject({
      success: true,
      endedSessions: 1,
      credential: { status: 'revoked' },
    });
    expect((await t.post(`/v1/avatar-session/${s.sessionId}/keep-alive`, s.token)).statusCode).toBe(410);
    const bad = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/credentials',
      headers: h,
      payload: { name: '' },
    });
    expect(bad.statusCode).toBe(400);
    const missing = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/credentials/nope/revoke',
      headers: h,
    });
    expect(missing.statusCode).toBe(404);
  });

  it('force-ends a session and reports usage', async () => {
    t = await createTestApp({ config: { adminToken: ADMIN } });
    const h = { authorization: `Bearer ${ADMIN}` };
    const s = await t.createSession();
    await t.post(`/v1/avatar-session/${s.sessionId}/say-text`, s.token, { text: 'hello' });
    t.clock.advance(2000);
    const end = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/sessions/${s.sessionId}/end`,
      headers: h,
    });
    expect(end.statusCode).toBe(200);
    expect((await t.stores.sessions.get(s.sessionId))?.endReason).toBe('ended_by_admin');
    expect(
      (await t.app.inject({ method: 'POST', url: `/admin/v1/sessions/${s.sessionId}/end`, headers: h }))
        .statusCode,
    ).toBe(410);
    const usage = (
      await t.app.inject({ method: 'GET', url: `/admin/v1/usage/${t.credential.id}`, headers: h })
    ).json();
    expect(usage).toMatchObject({
      success: true,
      sessionsCreated: 1,
      charactersSpoken: 5,
      sessionSeconds: 2,
      audioSeconds: 0,
    });
    const all = (await t.app.inject({ method: 'GET', url: '/admin/v1/usage', headers: h })).json();
    expect(all.usage).toHaveLength(1);
  });

  it('refuses unbounded plan limits and names with control characters (400), creating nothing', async () => {
    t = await createTestApp({ config: { adminToken: ADMIN } });
    const before = (await t.stores.credentials.list()).length;
    for (const body of [
      { name: 'x', maxSessions: 1e20 },
      { name: 'x', requestsPerSecond: 1e308 },
      { name: 'x', maxSessionDurationMs: 30 * 86_400_000 },
      { name: 'x', maxTextLength: 1e9 },
      { name: 'bad\u0000name' },
      { name: 'line\nbreak' },
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/admin/v1/credentials',
        headers: { authorization: `Bearer ${ADMIN}` },
        payload: body,
      });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'INVALID_REQUEST' });
    }
    expect(await t.stores.credentials.list()).toHaveLength(before);
  });
});
