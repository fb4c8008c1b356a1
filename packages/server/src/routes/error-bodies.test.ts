/**
 * Every answer with a status ≥ 400 is `{success:false, error, code}` and says what to do next —
 * Fastify's own errors (routing, URL, body parsing) and Node's HTTP parser errors included. Real
 * sockets: some of these are answered before any route or hook runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, multipartBody, type TestApp } from '../testing/test-app.js';

let t: TestApp;
let base: string;
let session: { sessionId: string; token: string };

beforeAll(async () => {
  t = await createTestApp({ config: { idleTimeoutMs: 30_000 } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  session = await t.createSession();
});
afterAll(() => t.close());

const sid = () => session.sessionId;
const bearer = () => ({ authorization: `Bearer ${session.token}` });

async function answer(path: string, init: RequestInit = {}) {
  const r = await fetch(base + path, init);
  const text = await r.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // checked below
  }
  return { status: r.status, headers: r.headers, text, body };
}

describe('the error body sweep', () => {
  const cases: Array<[string, () => [string, RequestInit], number, string, RegExp]> = [
    ['unknown route', () => ['/v1/nope', {}], 404, 'NOT_FOUND', /No route GET \/v1\/nope/],
    [
      'a known path with the wrong method',
      () => [`/v1/avatar-session/${sid()}/keep-alive`, { method: 'GET' }],
      405,
      'METHOD_NOT_ALLOWED',
      /use POST/,
    ],
    [
      'malformed JSON',
      () => [
        `/v1/avatar-session/${sid()}/say-text`,
        { method: 'POST', headers: { ...bearer(), 'content-type': 'application/json' }, body: '{bad' },
      ],
      400,
      'INVALID_REQUEST',
      /not valid JSON/,
    ],
    [
      'an over-long path parameter',
      () => [`/v1/avatar-session/${'a'.repeat(300)}/keep-alive`, { method: 'POST' }],
      414,
      'URI_TOO_LONG',
      /longer than 200 characters/,
    ],
    [
      'a path with bad percent-encoding',
      () => [`/v1/avatar-session/%zz/keep-alive`, { method: 'POST' }],
      400,
      'INVALID_REQUEST',
      /percent-encoding/,
    ],
    [
      'text/plain to a JSON route',
      () => [
        `/v1/avatar-session/${sid()}/say-text`,
        { method: 'POST', headers: { ...bearer(), 'content-type': 'text/plain' }, body: 'hi' },
      ],
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      /"text\/plain": this route takes application\/json/,
    ],
    [
      'JSON to the WHEP route',
      () => [
        `/v1/avatar-session/${sid()}/whep`,
        { method: 'POST', headers: { ...bearer(), 'content-type': 'application/json' }, body: '{}' },
      ],
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      /this route takes application\/sdp/,
    ],
    [
      'JSON to say-audio',
      () => [
        `/v1/avatar-session/${sid()}/say-audio`,
        { method: 'POST', headers: { ...bearer(), 'content-type': 'application/json' }, body: '{}' },
      ],
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      /this route takes multipart\/form-data/,
    ],
    [
      'a body over the limit',
      () => [
        `/v1/avatar-session/${sid()}/say-text`,
        {
          method: 'POST',
          headers: { ...bearer(), 'content-type': 'application/json' },
          body: JSON.stringify({ text: 'a'.repeat(2_000_000) }),
        },
      ],
      413,
      'PAYLOAD_TOO_LARGE',
      /too large/,
    ],
    [
      'multipart without a boundary',
      () => [
        `/v1/avatar-session/${sid()}/say-audio`,
        { method: 'POST', headers: { ...bearer(), 'content-type': 'multipart/form-data' }, body: 'xx' },
      ],
      400,
      'INVALID_REQUEST',
      /Malformed multipart\/form-data body/,
    ],
    [
      'a truncated multipart body',
      () => {
        const m = multipartBody(
          [
            ['turnId', 't'],
            ['audio', Buffer.alloc(2000, 1)],
          ],
          session.token,
        );
        return [
          `/v1/avatar-session/${sid()}/say-audio`,
          { method: 'POST', headers: m.headers, body: m.payload.subarray(0, 300) },
        ];
      },
      400,
      'INVALID_REQUEST',
      /Malformed multipart/,
    ],
    [
      'a request line and headers over 16 KiB',
      () => [`/v1/avatars?${'a'.repeat(100_000)}`, {}],
      431,
      'HEADERS_TOO_LARGE',
      /headers too large/,
    ],
  ];

  it.each(cases)('%s → %i %s with a message that says what to do', async (_n, req, status, code, message) => {
    const [path, init] = req();
    const a = await answer(path, init);
    expect(a.status, a.text).toBe(status);
    expect(a.body).toMatchObject({ success: false, code });
    expect(Object.keys(a.body).sort()).toEqual(['code', 'error', 'success']);
    expect(a.body['error']).toMatch(message);
  });

  it('a token route authenticates before it reads the body: no token + a bad body is 401, not 400', async () => {
    const a = await answer(`/v1/avatar-session/${sid()}/say-text`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"text": 5'.padEnd(100_000, ' '),
    });
    expect(a.status).toBe(401);
    expect(a.body).toMatchObject({ code: 'INVALID_TOKEN' });
  });

  it('create authenticates before it reads the body: no credential + a 1 MB body is 401, not 400', async () => {
    const a = await answer('/v1/avatar-session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ visualConfig: { avatarId: 5 }, junk: 'x'.repeat(1_000_000) }),
    });
    expect(a.status).toBe(401);
    expect(a.body).toMatchObject({ code: 'INVALID_CREDENTIAL' });
  });

  it('405 names the allowed methods in Allow', async () => {
    const a = await answer(`/v1/avatar-session/${sid()}/end`, { method: 'PUT' });
    expect(a.headers.get('allow')).toBe('POST');
  });

  it('a trailing slash on a route is accepted', async () => {
    expect(
      (await answer(`/v1/avatar-session/${sid()}/keep-alive/`, { method: 'POST', headers: bearer() })).status,
    ).toBe(200);
    const said = await answer(`/v1/avatar-session/${sid()}/say-text/`, {
      method: 'POST',
      headers: { ...bearer(), 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Hello.' }),
    });
    expect(said.status).toBe(200);
  });
});

describe('auth answers say which mistake it was', () => {
  const keepAlive = (headers: Record<string, string>) =>
    answer(`/v1/avatar-session/${sid()}/keep-alive`, { method: 'POST', headers });

  it.each([
    ['no Authorization header', {}, /^Invalid or expired token: missing Authorization header/],
    [
      'the credential (KS) on a token route',
      { authorization: 'KS mp_x_y' },
      /use Bearer <token> from create/,
    ],
    ['another scheme', { authorization: 'Basic dXNlcjpwdw==' }, /unsupported authorization scheme "Basic"/],
    ['a malformed token', { authorization: 'Bearer abc.def' }, /malformed token/],
  ] as Array<[string, Record<string, string>, RegExp]>)('%s', async (_n, headers, message) => {
    const a = await keepAlive(headers);
    expect(a.status).toBe(401);
    expect(a.body).toMatchObject({ success: false, code: 'INVALID_TOKEN' });
    expect(a.body['error']).toMatch(message);
    expect(a.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  it('a session token on create, and a revoked credential, are named as such', async () => {
    const create = (authorization: string) =>
      answer('/v1/avatar-session', {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ visualConfig: { avatarId: 'amara' } }),
      });
    const bearerOnCreate = await create(`Bearer ${session.token}`);
    expect(bearerOnCreate.status).toBe(401);
    expect(bearerOnCreate.body['error']).toMatch(/takes the session credential, not a session token/);
    const other = t.addCredential();
    t.stores.credentials.revoke(other.record.id, t.clock.now());
    const revoked = await create(`KS ${other.secret}`);
    expect(revoked.status).toBe(401);
    expect(revoked.body).toMatchObject({ code: 'INVALID_CREDENTIAL' });
    expect(revoked.body['error']).toMatch(/^Invalid or expired session credential: it was revoked at \d{4}-/);
  });
});

describe('410 says why the session ended', () => {
  it('idle timeout, client end and revocation each answer their reason', async () => {
    const idle = await t.createSession();
    const ended = await t.createSession();
    await t.post(`/v1/avatar-session/${ended.sessionId}/end`, ended.token);
    const other = t.addCredential();
    const revokedSession = await t.createSession(undefined, other.secret);
    t.stores.credentials.revoke(other.record.id, t.clock.now());
    t.clock.advance(1000); // the revocation poll
    t.clock.advance(30_000); // and the idle timeout of everything untouched
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    for (const [s, reason] of [
      [idle, 'idle_timeout'],
      [ended, 'ended_by_client'],
      [revokedSession, 'credential_revoked'],
    ] as const) {
      const a = await answer(`/v1/avatar-session/${s.sessionId}/keep-alive`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.token}` },
      });
      expect(a.status).toBe(410);
      expect(a.body).toEqual({
        success: false,
        error: `Session ended (${reason})`,
        code: 'SESSION_ENDED',
        reason,
      });
    }
  });
});
