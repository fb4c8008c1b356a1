/**
 * The viewer token of create's answer as `Authorization: Bearer` (a view-only page): it admits
 * init-client, keep-alive (which keeps the session alive) and WHEP offers; every other session
 * call answers 403 naming the call and changes nothing. The order stays 401 → 404 → 403 → 410.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, multipartBody, type TestApp } from '../testing/test-app.js';

let app: TestApp | undefined;
/** The test's app, made by its first `created()`. */
let t: TestApp;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

interface Created {
  sessionId: string;
  token: string;
  viewerToken: string;
}

async function created(config: Parameters<typeof createTestApp>[0] = {}): Promise<Created> {
  app ??= await createTestApp(config);
  t = app;
  return (await t.createSession()) as Created;
}

const OFFER = [
  'v=0',
  'o=- 1 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'm=audio 9 UDP/TLS/RTP/SAVPF 111',
  'a=rtpmap:111 opus/48000/2',
  'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
  '',
].join('\r\n');

function expectError(res: LightMyRequestResponse, status: number, code: string): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json()).toMatchObject({ success: false, code });
}

/** Each refused call, as a view-only page would send it. */
function refusedCalls(s: Created, bearer: string): Array<[string, () => Promise<LightMyRequestResponse>]> {
  const path = (call: string) => `/v1/avatar-session/${s.sessionId}/${call}`;
  const audio = multipartBody(
    [
      ['turnId', 't1'],
      ['duration', '1'],
      ['audio', Buffer.alloc(64)],
    ],
    bearer,
  );
  return [
    ['say-text', () => t.post(path('say-text'), bearer, { text: 'anything at all' })],
    ['say-audio', () => t.app.inject({ method: 'POST', url: path('say-audio'), ...audio })],
    ['interrupt', () => t.post(path('interrupt'), bearer, {})],
    ['end', () => t.post(path('end'), bearer, {})],
  ];
}

describe('the viewer token', () => {
  it('create answers viewerToken beside the spec fields, which are unchanged', async () => {
    const s = await created();
    expect(Object.keys(s).sort()).toEqual(['sessionId', 'success', 'token', 'viewerToken']);
    expect(s.sessionId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(s.token.split('.')).toHaveLength(3);
    expect(s.viewerToken).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(s.viewerToken).not.toBe(s.sessionId);
    // the viewer token is the whepUrl's vt
    const init = await t.post(`/v1/avatar-session/${s.sessionId}/init-client`, s.token, {});
    expect(new URL(init.json<{ whepUrl: string }>().whepUrl).searchParams.get('vt')).toBe(s.viewerToken);
  });

  it('admits init-client, keep-alive and a WHEP offer; its whepUrl works', async () => {
    const s = await created();
    const init = await t.post(`/v1/avatar-session/${s.sessionId}/init-client`, s.viewerToken, {});
    expect(init.statusCode, init.body).toBe(200);
    const { whepUrl } = init.json<{ whepUrl: string }>();
    const viaUrl = new URL(whepUrl);
    const offer = (url: string, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/sdp', ...headers },
        payload: OFFER,
      });
    expect((await offer(viaUrl.pathname + viaUrl.search)).statusCode).toBe(201);
    const viaBearer = await offer(viaUrl.pathname, { authorization: `Bearer ${s.viewerToken}` });
    expect(viaBearer.statusCode, viaBearer.body).toBe(201);
    expect((await t.post(`/v1/avatar-session/${s.sessionId}/keep-alive`, s.viewerToken)).statusCode).toBe(
      200,
    );
  });

  it('say-text, say-audio, interrupt and end answer 403 naming the call, and change nothing', async () => {
    const s = await created();
    const before = t.engine.calls.length;
    for (const [call, send] of refusedCalls(s, s.viewerToken)) {
      const res = await send();
      expectError(res, 403, 'FORBIDDEN');
      const { error } = res.json<{ error: string }>();
      expect(error).toMatch(/^Insufficient permissions: this is a viewer token/);
      expect(error).toContain(`${call} needs the session token, which stays on your backend`);
    }
    // the backend's event stream too (its 403 comes before the stream starts)
    const events = await t.app.inject({
      method: 'GET',
      url: `/v1/avatar-session/${s.sessionId}/events`,
      headers: { authorization: `Bearer ${s.viewerToken}` },
    });
    expectError(events, 403, 'FORBIDDEN');
    expect(events.json<{ error: string }>().error).toContain('events needs the session token');
    expect(t.engine.calls.slice(before)).toEqual([]); // no interrupt, no close
    expect(t.engine.sessionIds()).toEqual([s.sessionId]);
    // the session token still does all of it
    for (const [call, send] of refusedCalls(s, s.token))
      expect((await send()).statusCode, call).not.toBe(403);
  });

  it('a keep-alive with the viewer token keeps the session alive past the idle timeout', async () => {
    const s = await created({ config: { idleTimeoutMs: 30_000 } });
    for (let i = 0; i < 4; i++) {
      t.clock.advance(25_000);
      expect((await t.post(`/v1/avatar-session/${s.sessionId}/keep-alive`, s.viewerToken)).statusCode).toBe(
        200,
      );
    }
    expect(t.engine.sessionIds()).toEqual([s.sessionId]); // 100 s, well past 30 s
    t.clock.advance(30_000);
    await Promise.resolve();
    expect(t.engine.calls.at(-1)).toEqual({
      op: 'closeSession',
      sessionId: s.sessionId,
      reason: 'idle_timeout',
    });
    const ended = await t.post(`/v1/avatar-session/${s.sessionId}/keep-alive`, s.viewerToken);
    expectError(ended, 410, 'SESSION_ENDED');
  });

  it('401 for another session’s viewer token or an unknown one; 403 before 410; 410 where it admits', async () => {
    const a = await created();
    const b = await created();
    for (const call of ['init-client', 'keep-alive', 'say-text']) {
      const res = await t.post(`/v1/avatar-session/${a.sessionId}/${call}`, b.viewerToken, {});
      expectError(res, 401, 'INVALID_TOKEN');
      expect(res.json<{ error: string }>().error).toContain("nor this session's viewer token");
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    }
    // an unknown session: 401 first (a viewer token names no session of its own)
    expectError(
      await t.post('/v1/avatar-session/AbCdEfGhIjKlMnOpQrStUv/keep-alive', a.viewerToken, {}),
      401,
      'INVALID_TOKEN',
    );
    await t.post(`/v1/avatar-session/${a.sessionId}/end`, a.token, {});
    expectError(
      await t.post(`/v1/avatar-session/${a.sessionId}/say-text`, a.viewerToken, { text: 'hi' }),
      403,
      'FORBIDDEN',
    );
    const ended = await t.post(`/v1/avatar-session/${a.sessionId}/init-client`, a.viewerToken, {});
    expectError(ended, 410, 'SESSION_ENDED');
    expect(ended.json()).toMatchObject({ reason: 'ended_by_client' });
  });

  it('viewer calls count against the session’s rate limit as token calls do', async () => {
    const s = await created({ limits: { requestsPerSecond: 100 } }); // session limit 10/s, burst 20
    const codes: number[] = [];
    for (let i = 0; i < 10; i++) {
      codes.push((await t.post(`/v1/avatar-session/${s.sessionId}/keep-alive`, s.viewerToken)).statusCode);
      codes.push((await t.post(`/v1/avatar-session/${s.sessionId}/keep-alive`, s.token)).statusCode);
    }
    expect(codes.every((c) => c === 200)).toBe(true);
    expectError(
      await t.post(`/v1/avatar-session/${s.sessionId}/keep-alive`, s.viewerToken),
      429,
      'RATE_LIMITED',
    );
    expectError(await t.post(`/v1/avatar-session/${s.sessionId}/keep-alive`, s.token), 429, 'RATE_LIMITED');
  });
});
