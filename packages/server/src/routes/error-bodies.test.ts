/**
 * Every answer with a status ≥ 400 is `{success:false, error, code}` and says what to do next —
 * Fastify's own errors (routing, URL, body parsing) and Node's HTTP parser errors included. Real
 * sockets: some of these are answered before any route or hook runs.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEngineHost } from '@mouthpiece/engine/testing';
import { EndReason } from '@mouthpiece/protocol';
import { buildApp } from '../app.js';
import { createTestApp, JWT_SECRET, multipartBody, type TestApp } from '../testing/test-app.js';
import { testConfig } from '../testing/test-config.js';

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

/** What a raw HTTP exchange answers (for requests fetch will not send): status, headers, body. */
function rawExchange(
  port: number,
  request: string,
): Promise<{ status: number; head: string; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let out = '';
    socket.on('data', (d: Buffer) => (out += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseRaw(out)));
  });
}

function parseRaw(out: string): { status: number; head: string; body: unknown } {
  const split = out.indexOf('\r\n\r\n');
  const head = out.slice(0, split);
  const rest = out.slice(split + 4);
  let body: unknown;
  try {
    body = JSON.parse(rest);
  } catch {
    body = rest;
  }
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), head, body };
}

/** The shape every answer ≥ 400 has: exactly success, error and code (plus a 410's reason). */
function expectErrorShape(body: unknown, code: string, message: RegExp): void {
  expect(body).toMatchObject({ success: false, code });
  expect(Object.keys(body as object).sort()).toEqual(['code', 'error', 'success']);
  expect((body as { error: string }).error).toMatch(message);
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
      /^Unsupported media type: expected application\/json \(received text\/plain\)$/,
    ],
    [
      'JSON to the WHEP route',
      () => [
        `/v1/avatar-session/${sid()}/whep`,
        { method: 'POST', headers: { ...bearer(), 'content-type': 'application/json' }, body: '{}' },
      ],
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      /^Unsupported media type: expected application\/sdp \(received application\/json\)$/,
    ],
    [
      'JSON to say-audio',
      () => [
        `/v1/avatar-session/${sid()}/say-audio`,
        { method: 'POST', headers: { ...bearer(), 'content-type': 'application/json' }, body: '{}' },
      ],
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      /^Unsupported media type: expected multipart\/form-data \(received application\/json\)$/,
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
      /^Payload too large: this route takes at most 256 KiB$/,
    ],
    [
      'a body to keep-alive over its limit',
      () => [
        `/v1/avatar-session/${sid()}/keep-alive`,
        { method: 'POST', headers: { ...bearer(), 'content-type': 'text/plain' }, body: 'x'.repeat(70_000) },
      ],
      413,
      'PAYLOAD_TOO_LARGE',
      /at most 64 KiB/,
    ],
    [
      'an SDP offer over its limit',
      () => [
        `/v1/avatar-session/${sid()}/whep`,
        {
          method: 'POST',
          headers: { ...bearer(), 'content-type': 'application/sdp' },
          body: 'v=0\r\n'.padEnd(70_000, 'a'),
        },
      ],
      413,
      'PAYLOAD_TOO_LARGE',
      /at most 64 KiB/,
    ],
    [
      'an empty body labelled JSON',
      () => [
        `/v1/avatar-session/${sid()}/say-text`,
        { method: 'POST', headers: { ...bearer(), 'content-type': 'application/json' }, body: '' },
      ],
      400,
      'INVALID_REQUEST',
      /^Body is empty but Content-Type is application\/json/,
    ],
    [
      'a JSON array where an object goes',
      () => [
        '/v1/avatar-session',
        {
          method: 'POST',
          headers: { authorization: `KS ${t.secret}`, 'content-type': 'application/json' },
          body: '[1]',
        },
      ],
      400,
      'INVALID_REQUEST',
      /^Invalid body: must be object \(send a JSON object/,
    ],
    [
      'a create body sent as text/plain (fetch with a string body and no Content-Type)',
      () => [
        '/v1/avatar-session',
        {
          method: 'POST',
          headers: { authorization: `KS ${t.secret}` },
          body: JSON.stringify({ visualConfig: { avatarId: 'amara' } }),
        },
      ],
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      /^Unsupported media type: expected application\/json \(received text\/plain\)$/,
    ],
    [
      'two files in one say-audio form',
      () => {
        const m = multipartBody(
          [
            ['turnId', 't'],
            ['audio', Buffer.alloc(200, 1)],
            ['other', Buffer.alloc(200, 1)],
          ],
          session.token,
        );
        return [
          `/v1/avatar-session/${sid()}/say-audio`,
          { method: 'POST', headers: m.headers, body: m.payload },
        ];
      },
      413,
      'PAYLOAD_TOO_LARGE',
      /more than one file; send one file, in the field "audio"/,
    ],
    [
      'a long path of short segments',
      () => [`/v1/${'a/'.repeat(4000)}x`, {}],
      404,
      'NOT_FOUND',
      /^No route GET \/v1\/a\/a/,
    ],
    [
      'an unknown method on a known path',
      () => [`/v1/avatar-session/${sid()}/say-text`, { method: 'PROPFIND' }],
      405,
      'METHOD_NOT_ALLOWED',
      /Method PROPFIND is not allowed here; use POST/,
    ],
    [
      'DELETE on the WHEP endpoint rather than its resource',
      () => [`/v1/avatar-session/${sid()}/whep/`, { method: 'DELETE' }],
      405,
      'METHOD_NOT_ALLOWED',
      /use POST/,
    ],
    [
      'OPTIONS that is not a CORS preflight',
      () => [`/v1/avatar-session/${sid()}/keep-alive`, { method: 'OPTIONS' }],
      400,
      'INVALID_REQUEST',
      /^Invalid CORS preflight: an OPTIONS request needs Origin and Access-Control-Request-Method/,
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

  it.each(cases)('%s', async (_n, req, status, code, message) => {
    const [path, init] = req();
    const a = await answer(path, init);
    expect(a.status, a.text).toBe(status);
    expect(a.headers.get('content-type')).toMatch(/^application\/json/);
    expectErrorShape(a.body, code, message);
  });

  const port = () => Number(new URL(base).port);
  const rawCases: Array<[string, () => string, number, string, RegExp]> = [
    [
      'CONNECT (a proxy tunnel)',
      () => 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n',
      405,
      'METHOD_NOT_ALLOWED',
      /not a proxy/,
    ],
    [
      'TRACE',
      () => 'TRACE /v1/avatars HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      405,
      'METHOD_NOT_ALLOWED',
      /use GET/,
    ],
    [
      'a method HTTP does not know',
      () => 'FOO /v1/avatars HTTP/1.1\r\nHost: x\r\n\r\n',
      400,
      'INVALID_REQUEST',
      /^Malformed HTTP request: unknown method$/,
    ],
    [
      'OPTIONS *',
      () => 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      400,
      'INVALID_REQUEST',
      /Invalid CORS preflight/,
    ],
    [
      'HTTP/1.1 without Host',
      () => 'GET /v1/avatars HTTP/1.1\r\nConnection: close\r\n\r\n',
      400,
      'INVALID_REQUEST',
      /need a Host header/,
    ],
    [
      'a Content-Length that is not a number',
      () =>
        `POST /v1/avatar-session/${sid()}/say-text HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ten\r\n\r\n{}`,
      400,
      'INVALID_REQUEST',
      /Content-Length is not a number/,
    ],
  ];

  it.each(rawCases)('%s (raw socket)', async (_n, request, status, code, message) => {
    const a = await rawExchange(port(), request());
    expect(a.status, a.head).toBe(status);
    expect(a.head).toMatch(/content-type: application\/json/i);
    expectErrorShape(a.body, code, message);
  });

  it('HEAD on a POST route answers 405 with Allow and a JSON Content-Type (HEAD has no body)', async () => {
    const a = await rawExchange(
      port(),
      `HEAD /v1/avatar-session/${sid()}/keep-alive HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(a.status).toBe(405);
    expect(a.head).toMatch(/^allow: POST$/im);
    expect(a.head).toMatch(/^content-type: application\/json/im);
    expect(a.body).toBe('');
  });

  it('a browser preflight still answers 204 with the CORS headers', async () => {
    const a = await answer(`/v1/avatar-session/${sid()}/keep-alive`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(a.status).toBe(204);
    expect(a.headers.get('access-control-allow-origin')).toBe('https://app.example');
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

// a well-formed session token signed with another server's secret
const signedElsewhere =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzaWQiOiJ4Iiwic3ViIjoieSJ9.c2lnbmVkLWVsc2V3aGVyZS1zaWduYXR1cmUtMDEyMzQ1Njc4OQ';

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
    ['Bearer with no token', { authorization: 'Bearer' }, /malformed Authorization header/],
    [
      'a token of another server (bad signature)',
      { authorization: `Bearer ${signedElsewhere}` },
      /signature does not match \(issued by another server, or altered\)/,
    ],
  ] as Array<[string, Record<string, string>, RegExp]>)('%s', async (_n, headers, message) => {
    const a = await keepAlive(headers);
    expect(a.status).toBe(401);
    expect(a.body).toMatchObject({ success: false, code: 'INVALID_TOKEN' });
    expect(a.body['error']).toMatch(message);
    expect(a.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  it('an expired token says it expired, when, and what to do', async () => {
    const short = await createTestApp({
      limits: { maxSessionDurationMs: 60_000 },
      config: { endedRetentionMs: 60_000 },
    });
    try {
      const s = await short.createSession();
      short.clock.advance(121_000);
      const r = await short.post(`/v1/avatar-session/${s.sessionId}/keep-alive`, s.token);
      expect(r.statusCode).toBe(401);
      expect(r.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      expect(r.json()).toEqual({
        success: false,
        code: 'INVALID_TOKEN',
        error: expect.stringMatching(
          /^Invalid or expired token: the session token expired at \d{4}-\d\d-\d\dT[\d:.]+Z; create a new session$/,
        ),
      });
    } finally {
      await short.close();
    }
  });

  it('a WHEP offer with a wrong viewer token is told about the vt, not about a missing header', async () => {
    const a = await answer(`/v1/avatar-session/${sid()}/whep?vt=not-the-viewer-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp' },
      body: 'v=0\r\n',
    });
    expect(a.status).toBe(401);
    expect(a.body).toMatchObject({ code: 'INVALID_TOKEN' });
    expect(a.body['error']).toMatch(
      /the viewer token \(vt\) in the URL is not this session's; use the whepUrl/,
    );
  });

  it.each([
    ['no Authorization header', {}, /missing Authorization header; send "Authorization: KS <credential>"/],
    ['KS with nothing after it', { authorization: 'KS' }, /malformed Authorization header/],
    ['another scheme', { authorization: 'Basic dXNlcjpwdw==' }, /unsupported authorization scheme "Basic"/],
    [
      'a garbled credential',
      { authorization: 'KS not-a-credential' },
      /malformed; send "Authorization: KS <credential>" with the whole secret/,
    ],
    [
      'an unknown credential',
      { authorization: `KS mp_AAAAAAAAAAAAAAAA_${'A'.repeat(43)}` },
      /unknown credential/,
    ],
  ] as Array<[string, Record<string, string>, RegExp]>)(
    'create with %s says so',
    async (_n, headers, message) => {
      const a = await answer('/v1/avatars', { headers });
      expect(a.status).toBe(401);
      expect(a.headers.get('www-authenticate')).toBe('KS realm="mouthpiece"');
      expect(a.body).toMatchObject({ success: false, code: 'INVALID_CREDENTIAL' });
      expect(a.body['error']).toMatch(/^Invalid or expired session credential: /);
      expect(a.body['error']).toMatch(message);
    },
  );

  it('an expired credential says when it expired', async () => {
    const expired = t.addCredential({ expiresAt: t.clock.now() - 1000 });
    const a = await answer('/v1/voices', { headers: { authorization: `KS ${expired.secret}` } });
    expect(a.status).toBe(401);
    expect(a.body['error']).toMatch(/^Invalid or expired session credential: it expired at \d{4}-/);
  });

  it('the admin API says which mistake it was too', async () => {
    const admin = (headers: Record<string, string>) => answer('/admin/v1/credentials', { headers });
    const missing = await admin({});
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ code: 'INVALID_CREDENTIAL' });
    expect(missing.body['error']).toMatch(
      /missing Authorization header; send "Authorization: Bearer \$MOUTHPIECE_ADMIN_TOKEN" or "KS <credential with admin>"/,
    );
    expect((await admin(bearer())).body['error']).toMatch(
      /Bearer admin access is off \(MOUTHPIECE_ADMIN_TOKEN is not set\)/,
    );
    const revoked = t.addCredential({ permissions: ['admin'] });
    await t.stores.credentials.revoke(revoked.record.id, t.clock.now());
    expect((await admin({ authorization: `KS ${revoked.secret}` })).body['error']).toMatch(
      /it was revoked at/,
    );
    const plain = await admin({ authorization: `KS ${t.secret}` });
    expect(plain.status).toBe(403);
    expect(plain.body).toMatchObject({ code: 'CREDENTIAL_FORBIDDEN' });
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
    await t.stores.credentials.revoke(other.record.id, t.clock.now());
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
    await t.stores.credentials.revoke(other.record.id, t.clock.now());
    t.clock.advance(1000); // the revocation poll
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
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

describe('410 carries the reason for every way a session ends', () => {
  const keepAlive = (app: TestApp['app'], s: { sessionId: string; token: string }) =>
    app.inject({
      method: 'POST',
      url: `/v1/avatar-session/${s.sessionId}/keep-alive`,
      headers: { authorization: `Bearer ${s.token}` },
    });
  const ADMIN = 'admin-token-for-the-410-test-0123456789';

  /** Each end reason, and how a user's session comes to end that way. */
  const ways: Record<
    EndReason,
    (x: TestApp) => Promise<{ sessionId: string; token: string; app: TestApp['app'] }>
  > = {
    ended_by_client: async (x) => {
      const s = await x.createSession();
      await x.post(`/v1/avatar-session/${s.sessionId}/end`, s.token);
      return { ...s, app: x.app };
    },
    idle_timeout: async (x) => {
      const s = await x.createSession();
      x.clock.advance(31_000);
      return { ...s, app: x.app };
    },
    max_duration: async (x) => {
      const s = await x.createSession(
        undefined,
        x.addCredential({ limits: { maxSessionDurationMs: 20_000 } }).secret,
      );
      for (let i = 0; i < 3; i++) {
        x.clock.advance(9_000);
        await keepAlive(x.app, s);
      }
      return { ...s, app: x.app };
    },
    credential_revoked: async (x) => {
      const c = x.addCredential();
      const s = await x.createSession(undefined, c.secret);
      await x.app.inject({
        method: 'POST',
        url: `/admin/v1/credentials/${c.record.id}/revoke`,
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      return { ...s, app: x.app };
    },
    engine_failed: async (x) => {
      const s = await x.createSession();
      x.engine.failSession(s.sessionId);
      return { ...s, app: x.app };
    },
    ended_by_admin: async (x) => {
      const s = await x.createSession();
      await x.app.inject({
        method: 'POST',
        url: `/admin/v1/sessions/${s.sessionId}/end`,
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      return { ...s, app: x.app };
    },
    server_restart: async (x) => {
      const s = await x.createSession();
      await x.app.close(); // ends what is live as server_restart; the store keeps the record
      const app = await buildApp({
        config: testConfig({ idleTimeoutMs: 30_000 }),
        stores: x.stores,
        engine: new FakeEngineHost({ clock: x.clock }),
        clock: x.clock,
        jwtSecret: JWT_SECRET,
        turn: { mode: 'off', host: 'localhost', ports: [], secret: '' },
        logger: false,
      });
      return { ...s, app };
    },
    node_failed: async (x) => {
      // cluster mode: another node sees the holder's heartbeat lapse and marks the record ended;
      // a node that does not hold the session answers from the shared store
      const s = await x.createSession();
      await x.stores.sessions.markEnded(s.sessionId, 'node_failed', x.clock.now());
      const app = await buildApp({
        config: testConfig({ idleTimeoutMs: 30_000 }),
        stores: x.stores,
        engine: new FakeEngineHost({ clock: x.clock }),
        clock: x.clock,
        jwtSecret: JWT_SECRET,
        turn: { mode: 'off', host: 'localhost', ports: [], secret: '' },
        logger: false,
      });
      return { ...s, app };
    },
  };

  it.each(Object.values(EndReason))('%s', async (reason) => {
    const x = await createTestApp({ config: { idleTimeoutMs: 30_000, adminToken: ADMIN } });
    const ended = await ways[reason](x);
    try {
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      const r = await keepAlive(ended.app, ended);
      expect(r.statusCode).toBe(410);
      expect(r.json()).toEqual({
        success: false,
        error: `Session ended (${reason})`,
        code: 'SESSION_ENDED',
        reason,
      });
    } finally {
      await ended.app.close();
      await x.close();
    }
  });

  it('a call the engine can no longer serve answers engine_failed (before the registry hears of it)', async () => {
    const x = await createTestApp();
    try {
      const s = await x.createSession();
      // the engine drops the session without a word, as a dying engine process does
      await x.engine.closeSession(s.sessionId, 'process exited');
      const said = await x.post(`/v1/avatar-session/${s.sessionId}/say-text`, s.token, {
        text: 'Hello there.',
      });
      expect(said.statusCode).toBe(410);
      expect(said.json()).toEqual({
        success: false,
        error: 'Session ended (engine_failed)',
        code: 'SESSION_ENDED',
        reason: 'engine_failed',
      });
    } finally {
      await x.close();
    }
  });
});

describe('readiness', () => {
  it('a failing check answers 503 with the error body and the checks beside it', async () => {
    const x = await createTestApp();
    try {
      x.stores.check = () => Promise.resolve('failing: disk I/O error');
      const r = await x.app.inject({ method: 'GET', url: '/readyz' });
      expect(r.statusCode).toBe(503);
      expect(r.json()).toEqual({
        success: false,
        error: 'Not ready (storage: failing: disk I/O error)',
        code: 'NOT_READY',
        checks: { storage: 'failing: disk I/O error', engine: 'ok' },
        sessions: 0,
      });
    } finally {
      await x.close();
    }
  });
});

describe('while the server shuts down', () => {
  it('a request on a kept-alive connection gets our 503 body, not Fastify’s', async () => {
    const x = await createTestApp();
    await x.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (x.app.server.address() as { port: number }).port;
    const s = await x.createSession();
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let out = '';
    socket.on('data', (d: Buffer) => (out += d.toString('latin1')));
    const body = JSON.stringify({ text: 'Hello.' });
    // a request in flight (its body not yet sent) keeps the connection busy while close starts
    socket.write(
      `POST /v1/avatar-session/${s.sessionId}/say-text HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 3)}`,
    );
    await new Promise((r) => setTimeout(r, 50));
    const closed = x.app.close();
    await new Promise((r) => setTimeout(r, 50));
    socket.write(`${body.slice(3)}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
    await new Promise((r) => socket.once('close', r));
    await closed;
    const answers = out.split(/(?=HTTP\/1\.1 )/).map(parseRaw);
    expect(answers.map((a) => a.status)).toEqual([200, 503]);
    expect(answers[1]!.head).toMatch(/^retry-after: 2$/im);
    expectErrorShape(answers[1]!.body, 'SHUTTING_DOWN', /shutting down; retry in a moment/);
  });
});
