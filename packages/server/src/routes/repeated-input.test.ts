/**
 * A query parameter, header or form field given twice is a 400 naming it, on every route that
 * reads one — never a 500 (a repeated query parameter arrives as an array) and never a silent
 * pick of one of the values (Node keeps the first `Authorization` and drops the rest).
 * The fuzzer's cases: `?vt=…&vt=…`, two Authorization lines, an Authorization list joined with
 * commas (fetch's `Headers.append`), two Content-Type or Host lines, repeated multipart fields.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, multipartBody, type TestApp } from '../testing/test-app.js';

const ADMIN = 'admin-token-for-tests-of-repeated-input';
const METRICS = 'metrics-token-for-tests';
const OFFER = [
  'v=0',
  'o=- 1 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'm=video 9 UDP/TLS/RTP/SAVPF 96',
  'a=rtpmap:96 VP8/90000',
  'm=audio 9 UDP/TLS/RTP/SAVPF 111',
  'a=rtpmap:111 opus/48000/2',
  '',
].join('\r\n');

let t: TestApp;
let port: number;
let s: { sessionId: string; token: string };
let vt: string;

beforeAll(async () => {
  t = await createTestApp({ config: { adminToken: ADMIN, metricsToken: METRICS, idleTimeoutMs: 600_000 } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
  s = await t.createSession();
  const init = (await t.post(`/v1/avatar-session/${s.sessionId}/init-client`, s.token)).json<{
    whepUrl: string;
  }>();
  vt = new URL(init.whepUrl).searchParams.get('vt')!;
});
afterAll(() => t.close());

/** What the server did: engine calls, usage, sessions (a refused request changes none of it). */
const state = () =>
  JSON.stringify([t.engine.calls.length, t.stores.usage.all(), t.stores.sessions.listActive()]);

function expectRepeated(res: { statusCode: number; json(): unknown }, message: string | RegExp) {
  expect(res.statusCode).toBe(400);
  const body = res.json() as Record<string, unknown>;
  expect(body).toMatchObject({ success: false, code: 'INVALID_REQUEST' });
  expect(Object.keys(body).sort()).toEqual(['code', 'error', 'success']);
  expect(body['error']).toMatch(message);
}

/**
 * One request over a raw socket, header lines exactly as given (fetch and Node's client merge or
 * refuse repeats): status and parsed JSON body.
 */
function raw(
  method: string,
  path: string,
  lines: Array<[string, string]>,
  body = '',
): Promise<{ statusCode: number; json(): unknown }> {
  const head = [
    `${method} ${path} HTTP/1.1`,
    ...(lines.some(([n]) => n.toLowerCase() === 'host') ? [] : [`Host: 127.0.0.1:${port}`]),
    ...lines.map(([n, v]) => `${n}: ${v}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`${head}\r\n\r\n${body}`));
    let out = '';
    socket.on('data', (d: Buffer) => (out += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const split = out.indexOf('\r\n\r\n');
      const statusCode = Number(/^HTTP\/1\.1 (\d{3})/.exec(out)?.[1]);
      const text = out.slice(split + 4);
      resolve({ statusCode, json: () => JSON.parse(text) as unknown });
    });
  });
}

describe('a query parameter given twice', () => {
  it('a WHEP offer with the viewer token twice answers 400 naming "vt", not 500', async () => {
    const before = state();
    const path = `/v1/avatar-session/${s.sessionId}/whep`;
    for (const query of [`vt=${vt}&vt=${vt}`, `vt=${vt}&vt=other`, 'vt=a&vt=b&vt=c']) {
      const res = await t.app.inject({
        method: 'POST',
        url: `${path}?${query}`,
        headers: { 'content-type': 'application/sdp' },
        payload: OFFER,
      });
      expectRepeated(res, 'Query parameter "vt" must be given once');
    }
    // with a valid session token beside it too: the repeat is the mistake, whatever else admits
    const withToken = await t.app.inject({
      method: 'POST',
      url: `${path}?vt=${vt}&vt=${vt}`,
      headers: { 'content-type': 'application/sdp', authorization: `Bearer ${s.token}` },
      payload: OFFER,
    });
    expectRepeated(withToken, 'Query parameter "vt" must be given once');
    expect(state()).toBe(before);
    // the same offer with the token once is served
    const once = await t.app.inject({
      method: 'POST',
      url: `${path}?vt=${vt}`,
      headers: { 'content-type': 'application/sdp' },
      payload: OFFER,
    });
    expect(once.statusCode).toBe(201);
  });
});

describe('an Authorization header given twice', () => {
  const routes: Array<[string, string, string, string]> = [
    ['create', 'POST', '/v1/avatar-session', 'KS'],
    ['the catalog', 'GET', '/v1/avatars', 'KS'],
    ['a token route', 'POST', '/session/keep-alive', 'Bearer'],
    ['a WHEP offer without vt', 'POST', '/session/whep', 'Bearer'],
    ['the admin API', 'GET', '/admin/v1/credentials', 'Bearer'],
    ['metrics', 'GET', '/metrics', 'Bearer'],
  ];
  const goodValue = (scheme: string, path: string) =>
    scheme === 'KS' ? t.secret : path.startsWith('/admin') ? ADMIN : path === '/metrics' ? METRICS : s.token;
  const url = (path: string) => path.replace('/session', `/v1/avatar-session/${s.sessionId}`);

  it.each(routes)(
    'on %s: two lines answer 400 (not the first line silently)',
    async (_n, method, path, scheme) => {
      const good = `${scheme} ${goodValue(scheme, path)}`;
      const before = state();
      for (const second of [good, `${scheme} not-the-right-one`]) {
        const res = await raw(method, url(path), [
          ['Authorization', good],
          ['Authorization', second],
        ]);
        expectRepeated(res, 'Header "Authorization" must be given once');
      }
      expect(state()).toBe(before);
    },
  );

  it.each(routes)('on %s: a comma-joined list answers 400', async (_n, method, path, scheme) => {
    const good = `${scheme} ${goodValue(scheme, path)}`;
    // what fetch sends for Headers.append twice, and what inject makes of an array
    const joined = await raw(method, url(path), [['Authorization', `${good}, ${good}`]]);
    expectRepeated(joined, /Header "Authorization" must be given once/);
    const array = await t.app.inject({
      method: method as 'GET' | 'POST',
      url: url(path),
      headers: { authorization: [good, `${scheme} other`] },
    });
    expectRepeated(array, /Header "Authorization" must be given once/);
  });

  it('the same requests with the header once are served', async () => {
    const keepAlive = await raw('POST', `/v1/avatar-session/${s.sessionId}/keep-alive`, [
      ['Authorization', `Bearer ${s.token}`],
    ]);
    expect(keepAlive.statusCode).toBe(200);
    const metrics = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS}` } });
    expect(metrics.statusCode).toBe(200);
  });
});

describe('other headers given twice', () => {
  it('two Content-Type lines answer 400 (say-text, WHEP)', async () => {
    const before = state();
    const sayText = await raw(
      'POST',
      `/v1/avatar-session/${s.sessionId}/say-text`,
      [
        ['Authorization', `Bearer ${s.token}`],
        ['Content-Type', 'application/json'],
        ['Content-Type', 'text/plain'],
      ],
      JSON.stringify({ text: 'hello', turnId: 't-ct', isFinal: true }),
    );
    expectRepeated(sayText, 'Header "Content-Type" must be given once');
    const whep = await raw(
      'POST',
      `/v1/avatar-session/${s.sessionId}/whep?vt=${vt}`,
      [
        ['Content-Type', 'application/sdp'],
        ['Content-Type', 'application/sdp'],
      ],
      OFFER,
    );
    expectRepeated(whep, 'Header "Content-Type" must be given once');
    expect(state()).toBe(before);
  });

  it('two Host lines answer 400 (RFC 9112 §3.2)', async () => {
    const res = await raw('GET', '/healthz', [
      ['Host', `127.0.0.1:${port}`],
      ['Host', 'elsewhere.example'],
    ]);
    expectRepeated(res, 'Header "Host" must be given once');
  });

  it('a CORS preflight with two Origin lines answers 400', async () => {
    const res = await raw('OPTIONS', `/v1/avatar-session/${s.sessionId}/say-text`, [
      ['Origin', 'https://a.example'],
      ['Origin', 'https://b.example'],
      ['Access-Control-Request-Method', 'POST'],
    ]);
    expectRepeated(res, 'Header "Origin" must be given once');
  });
});

describe('a multipart field given twice', () => {
  it('say-audio with turnId or duration twice answers 400 naming the field', async () => {
    const before = state();
    const audio = Buffer.alloc(64);
    for (const [field, fields] of [
      [
        'turnId',
        [
          ['turnId', 'a'],
          ['turnId', 'b'],
          ['duration', '1.0'],
          ['audio', audio],
        ],
      ],
      [
        'duration',
        [
          ['audio', audio],
          ['turnId', 'a'],
          ['duration', '1.0'],
          ['duration', '2.0'],
        ],
      ],
    ] as Array<[string, Array<[string, string | Buffer]>]>) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/v1/avatar-session/${s.sessionId}/say-audio`,
        ...multipartBody(fields, s.token),
      });
      expectRepeated(res, `Form field "${field}" must be given once`);
    }
    expect(state()).toBe(before);
  });

  it('an avatar upload with id or name twice answers 400 naming the field', async () => {
    for (const [field, fields] of [
      [
        'id',
        [
          ['id', 'a'],
          ['id', 'b'],
          ['name', 'A'],
          ['image', Buffer.alloc(8)],
        ],
      ],
      [
        'name',
        [
          ['id', 'a'],
          ['name', 'A'],
          ['name', 'B'],
          ['image', Buffer.alloc(8)],
        ],
      ],
    ] as Array<[string, Array<[string, string | Buffer]>]>) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/admin/v1/avatars',
        ...multipartBody(fields, ADMIN),
      });
      expectRepeated(res, `Form field "${field}" must be given once`);
    }
  });
});
