import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/test-app.js';
import { TEST_METRICS_TOKEN } from '../testing/test-config.js';

let t: TestApp;
afterEach(async () => t?.close());

describe('operations and discovery', () => {
  it('healthz and readyz answer 200', async () => {
    t = await createTestApp();
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().checks).toEqual({ storage: 'ok', engine: 'ok' });
  });

  it('metrics count sessions, ends by reason, request latency and rate-limit rejections', async () => {
    t = await createTestApp({ limits: { requestsPerSecond: 1 } });
    const { sessionId, token } = await t.createSession();
    for (let i = 0; i < 4; i++) await t.post(`/v1/avatar-session/${sessionId}/keep-alive`, token);
    t.clock.advance(5000);
    await t.post(`/v1/avatar-session/${sessionId}/end`, token);
    const text = await t.metrics();
    expect(text).toMatch(/^mouthpiece_sessions_created_total 1$/m);
    expect(text).toMatch(/^mouthpiece_sessions_active 0$/m);
    expect(text).toMatch(/^mouthpiece_sessions_ended_total\{reason="ended_by_client"\} 1$/m);
    expect(text).toMatch(/mouthpiece_rate_limited_total\{scope="\w+"\} [1-9]/);
    expect(text).toMatch(
      /mouthpiece_http_request_duration_seconds_count\{route="\/v1\/avatar-session\/:sessionId\/keep-alive",method="POST",status="200"\} \d/,
    );
  });

  it('metrics report the frames each engine process sent and skipped, and its media tick stalls', async () => {
    t = await createTestApp();
    t.engine.media = [
      {
        pid: 41,
        sessions: 2,
        framesSent: 500,
        framesHeld: 7,
        framesSkipped: 3,
        ticks: 1000,
        skippedTicks: 4,
        maxLateMs: 310,
        stalls: 2,
        recentMaxLateMs: 0,
      },
    ];
    const text = await t.metrics();
    expect(text).toMatch(/^mouthpiece_engine_sessions\{pid="41"\} 2$/m);
    expect(text).toMatch(/^mouthpiece_engine_frames_sent\{pid="41"\} 500$/m);
    expect(text).toMatch(/^mouthpiece_engine_frames_held\{pid="41"\} 7$/m);
    expect(text).toMatch(/^mouthpiece_engine_frames_skipped\{pid="41"\} 3$/m);
    expect(text).toMatch(/^mouthpiece_engine_ticks_skipped\{pid="41"\} 4$/m);
    expect(text).toMatch(/^mouthpiece_engine_tick_max_late_ms\{pid="41"\} 310$/m);
    expect(text).toMatch(/^mouthpiece_engine_tick_recent_max_late_ms\{pid="41"\} 0$/m);
    expect(text).toMatch(/^# TYPE mouthpiece_engine_tick_stalls_total counter$/m);
    expect(text).toMatch(/^mouthpiece_engine_tick_stalls_total\{pid="41"\} 2$/m);
    // the next ping: one more stall, and the window's worst lateness
    t.engine.media = [{ ...t.engine.media[0]!, stalls: 3, recentMaxLateMs: 120 }];
    const next = await t.metrics();
    expect(next).toMatch(/^mouthpiece_engine_tick_stalls_total\{pid="41"\} 3$/m);
    expect(next).toMatch(/^mouthpiece_engine_tick_recent_max_late_ms\{pid="41"\} 120$/m);
    t.engine.media = [];
    const after = await t.metrics();
    expect(after).not.toMatch(/pid="41"/);
  });

  it('the catalog lists avatars and voices with KS auth only', async () => {
    t = await createTestApp();
    const avatars = await t.app.inject({
      method: 'GET',
      url: '/v1/avatars',
      headers: { authorization: `KS ${t.secret}` },
    });
    expect(avatars.json().avatars.map((a: { id: string }) => a.id)).toEqual(['amara', 'jonas', 'mei']);
    const voices = await t.app.inject({
      method: 'GET',
      url: '/v1/voices',
      headers: { authorization: `KS ${t.secret}` },
    });
    expect(voices.json().voices[0]).toEqual({
      id: 'en-us-female',
      name: expect.any(String),
      language: 'en-US',
      gender: 'female',
    });
    expect((await t.app.inject({ method: 'GET', url: '/v1/voices' })).statusCode).toBe(401);
  });

  it('the OpenAPI document lists every public route', async () => {
    t = await createTestApp();
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(doc.openapi).toBe('3.0.3');
    const paths = Object.keys(doc.paths);
    for (const p of [
      '/v1/avatar-session',
      '/v1/avatar-session/create',
      '/v1/avatar-session/{sessionId}/init-client',
      '/v1/avatar-session/{sessionId}/say-text',
      '/v1/avatar-session/{sessionId}/say-audio',
      '/v1/avatar-session/{sessionId}/interrupt',
      '/v1/avatar-session/{sessionId}/keep-alive',
      '/v1/avatar-session/{sessionId}/end',
      '/v1/avatar-session/{sessionId}/whep',
      '/v1/avatar-session/{sessionId}/whep/{viewerId}',
      '/v1/avatars',
      '/v1/voices',
    ]) {
      expect(paths).toContain(p);
    }
    expect(
      doc.paths['/v1/avatar-session/{sessionId}/say-text'].post.requestBody.content['application/json'].schema
        .properties.isFinal.type,
    ).toBe('boolean');
  });

  it('create routes follow MOUTHPIECE_CORS_ORIGINS; session routes allow any origin', async () => {
    t = await createTestApp({ config: { corsOrigins: ['https://app.example.test'] } });
    const pre = (url: string, origin: string) =>
      t.app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': 'POST' } });
    expect(
      (await pre('/v1/avatar-session', 'https://app.example.test')).headers['access-control-allow-origin'],
    ).toBe('https://app.example.test');
    expect(
      (await pre('/v1/avatar-session', 'https://evil.example.test')).headers['access-control-allow-origin'],
    ).toBeUndefined();
    expect(
      (await pre('/v1/avatar-session/abc/keep-alive', 'https://evil.example.test')).headers[
        'access-control-allow-origin'
      ],
    ).toBe('https://evil.example.test');
  });
});

describe('unauthenticated traffic', () => {
  const create = (authorization: string | undefined, remoteAddress = '203.0.113.7') =>
    t.app.inject({
      method: 'POST',
      url: '/v1/avatar-session',
      remoteAddress,
      headers: authorization ? { authorization } : {},
      payload: { visualConfig: { avatarId: 'x'.repeat(100_000) } },
    });

  it('an address that keeps failing authentication gets 429 before anything is parsed, until its bucket refills', async () => {
    t = await createTestApp({ config: { authFailuresPerSecond: 2 } });
    for (let i = 0; i < 4; i++) expect((await create('KS mp_nope')).statusCode).toBe(401); // the burst: 2 × 2
    const limited = await create('KS mp_nope');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({
      code: 'RATE_LIMITED',
      error: expect.stringMatching(/failed authentications/),
    });
    expect(limited.headers['retry-after']).toBe('1');
    // the address is held back whatever it sends; other addresses are not
    expect((await create(`KS ${t.secret}`)).statusCode).toBe(429);
    expect((await create(undefined, '198.51.100.1')).statusCode).toBe(401);
    t.clock.advance(1000);
    const ok = await t.app.inject({
      method: 'POST',
      url: '/v1/avatar-session',
      remoteAddress: '203.0.113.7',
      headers: { authorization: `KS ${t.secret}` },
      payload: { visualConfig: { avatarId: 'amara' } },
    });
    expect(ok.statusCode).toBe(200);
    const text = await t.metrics();
    expect(text).toMatch(/^mouthpiece_rate_limited_total\{scope="auth_failures"\} 2$/m);
  });

  it('valid callers never spend the budget', async () => {
    t = await createTestApp({ config: { authFailuresPerSecond: 1 } });
    for (let i = 0; i < 5; i++) await t.createSession();
    expect(
      (await t.app.inject({ method: 'GET', url: '/v1/voices', headers: { authorization: `KS ${t.secret}` } }))
        .statusCode,
    ).toBe(200);
  });

  it("behind a proxy (MOUTHPIECE_TRUST_PROXY=1) the address is the proxy's last X-Forwarded-For entry, not what the client wrote", async () => {
    const through = (client: string, written: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/avatar-session',
        remoteAddress: '127.0.0.1', // the proxy
        headers: { authorization: 'KS mp_nope', 'x-forwarded-for': `${written}, ${client}` },
        payload: {},
      });
    t = await createTestApp({ config: { authFailuresPerSecond: 1, trustProxy: true } });
    // one client writing a new address each time is still one address: its burst (2) is spent
    for (let i = 0; i < 2; i++) expect((await through('198.51.100.4', `10.0.0.${i}`)).statusCode).toBe(401);
    expect((await through('198.51.100.4', '10.0.0.9')).statusCode).toBe(429);
    // another client behind the same proxy is not held back
    expect((await through('198.51.100.5', '10.0.0.9')).statusCode).toBe(401);
    await t.close();
    // without it, every client is the proxy: one client's failures hold back the next
    t = await createTestApp({ config: { authFailuresPerSecond: 1 } });
    for (let i = 0; i < 2; i++) await through('198.51.100.4', '10.0.0.1');
    expect((await through('198.51.100.5', '10.0.0.1')).statusCode).toBe(429);
  });
});

describe('/metrics', () => {
  it('is never readable by pages of other origins (no CORS headers, even for a preflight)', async () => {
    t = await createTestApp();
    const get = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { origin: 'https://evil.example', authorization: `Bearer ${TEST_METRICS_TOKEN}` },
    });
    expect(get.statusCode).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/metrics',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    // the session routes stay open to any origin (the demo page, the SDK)
    const session = await t.app.inject({
      method: 'OPTIONS',
      url: '/v1/avatar-session/abc/keep-alive',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(session.headers['access-control-allow-origin']).toBe('https://app.example');
  });

  it('with MOUTHPIECE_METRICS_TOKEN, asks for it as a Bearer token', async () => {
    t = await createTestApp({ config: { metricsToken: 'm'.repeat(24) } });
    const none = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({
      code: 'INVALID_CREDENTIAL',
      error: expect.stringMatching(/MOUTHPIECE_METRICS_TOKEN/),
    });
    const wrong = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: 'Bearer nope' },
    });
    expect(wrong.statusCode).toBe(401);
    const right = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${'m'.repeat(24)}` },
    });
    expect(right.statusCode).toBe(200);
    expect(right.body).toMatch(/^mouthpiece_sessions_active /m);
  });

  it('without a metrics token, asks for the admin token', async () => {
    const admin = 'a'.repeat(32);
    t = await createTestApp({ config: { metricsToken: undefined, adminToken: admin } });
    const none = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(none.json<{ error: string }>().error).toMatch(/MOUTHPIECE_ADMIN_TOKEN/);
    const right = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(right.statusCode).toBe(200);
    expect(right.body).toMatch(/^mouthpiece_sessions_active /m);
  });

  it('with neither token, is off and says which setting turns it on', async () => {
    t = await createTestApp({ config: { metricsToken: undefined, adminToken: undefined } });
    const res = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({
      code: 'NOT_FOUND',
      error: expect.stringMatching(/Metrics are off: set MOUTHPIECE_METRICS_TOKEN/),
    });
    expect(res.body).not.toMatch(/mouthpiece_sessions_active/);
  });
});
