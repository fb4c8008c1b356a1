import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/test-app.js';

let t: TestApp;
afterEach(async () => t?.close());

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

async function setup(turn = false) {
  t = await createTestApp(
    turn ? { turn: { mode: 'managed', host: '127.0.0.1', ports: [3478], secret: 'sec' } } : {},
  );
  const s = await t.createSession();
  const init = (await t.post(`/v1/avatar-session/${s.sessionId}/init-client`, s.token)).json<{
    whepUrl: string;
  }>();
  const url = new URL(init.whepUrl);
  return { ...s, whepPath: url.pathname + url.search, vt: url.searchParams.get('vt')!, path: url.pathname };
}

const sdpHeaders = { 'content-type': 'application/sdp' };

describe('WHEP', () => {
  it('POST with the viewer token answers 201 with Location, ETag, Accept-Patch and the answer SDP', async () => {
    const { whepPath, sessionId } = await setup(true);
    const res = await t.app.inject({ method: 'POST', url: whepPath, headers: sdpHeaders, payload: OFFER });
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-type']).toBe('application/sdp');
    expect(res.headers['location']).toMatch(new RegExp(`^/v1/avatar-session/${sessionId}/whep/[\\w-]{22}$`));
    expect(res.headers['etag']).toBeDefined();
    expect(res.headers['accept-patch']).toBe('application/trickle-ice-sdpfrag');
    const link = [res.headers['link']].flat().join(',');
    expect(link).toContain('<turn:127.0.0.1:3478?transport=udp>; rel="ice-server"');
    expect(link).toContain('credential-type="password"');
    expect(res.body.startsWith('v=0')).toBe(true);
  });

  it("a page's offer that arrives after a newer one of the same page (sent, given up, delivered late) is refused before the engine", async () => {
    const { whepPath } = await setup();
    const post = (order: string) =>
      t.app.inject({
        method: 'POST',
        url: `${whepPath}&order=${order}`,
        headers: sdpHeaders,
        payload: OFFER,
      });
    expect((await post('pageA.2')).statusCode).toBe(201);
    const viewers = () => t.engine.calls.filter((c) => c.op === 'connectViewer').length;
    const before = viewers();
    const stale = await post('pageA.1');
    expect(stale.statusCode).toBe(400);
    expect(stale.json()).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(viewers()).toBe(before);
    expect((await post('pageA.3')).statusCode).toBe(201);
    expect((await post('pageB.1')).statusCode).toBe(201); // another page takes over
    expect(
      (await t.app.inject({ method: 'POST', url: whepPath, headers: sdpHeaders, payload: OFFER })).statusCode,
    ).toBe(201);
    expect(viewers()).toBe(before + 3);
  });

  it('an offer without video (a page that draws the avatar itself) is answered 201 with audio and the data channel only', async () => {
    const { whepPath } = await setup();
    const offer = [
      ...OFFER.split('\r\n').filter((l) => !l.startsWith('m=video') && !l.includes('VP8') && l !== ''),
      'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
      '',
    ].join('\r\n');
    const res = await t.app.inject({ method: 'POST', url: whepPath, headers: sdpHeaders, payload: offer });
    expect(res.statusCode).toBe(201);
    expect(res.body).toMatch(/^m=audio /m);
    expect(res.body).toMatch(/^m=application /m);
    expect(res.body).not.toMatch(/^m=video /m);
  });

  it('accepts a Bearer token instead of the viewer token; a valid vt wins over a junk Authorization', async () => {
    const { path, token, whepPath } = await setup();
    const bearer = await t.app.inject({
      method: 'POST',
      url: path,
      headers: { ...sdpHeaders, authorization: `Bearer ${token}` },
      payload: OFFER,
    });
    expect(bearer.statusCode).toBe(201);
    const junk = await t.app.inject({
      method: 'POST',
      url: whepPath,
      headers: { ...sdpHeaders, authorization: 'some-raw-player-key' },
      payload: OFFER,
    });
    expect(junk.statusCode).toBe(201);
    const none = await t.app.inject({ method: 'POST', url: path, headers: sdpHeaders, payload: OFFER });
    expect(none.statusCode).toBe(401);
    const wrongVt = await t.app.inject({
      method: 'POST',
      url: `${path}?vt=AAAAAAAAAAAAAAAAAAAAAA`,
      headers: sdpHeaders,
      payload: OFFER,
    });
    expect(wrongVt.statusCode).toBe(401);
  });

  it('PATCH trickles candidates (204), DELETE ends the viewer (200), then the resource is gone (404)', async () => {
    const { whepPath, sessionId } = await setup();
    const post = await t.app.inject({ method: 'POST', url: whepPath, headers: sdpHeaders, payload: OFFER });
    const location = post.headers['location'] as string;
    const frag =
      'a=ice-ufrag:abcd\r\na=ice-pwd:efgh\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\na=mid:0\r\na=candidate:1 1 udp 2130706431 127.0.0.2 50000 typ host\r\n';
    const patch = await t.app.inject({
      method: 'PATCH',
      url: location,
      headers: { 'content-type': 'application/trickle-ice-sdpfrag' },
      payload: frag,
    });
    expect(patch.statusCode).toBe(204);
    expect(t.engine.calls.at(-1)).toMatchObject({ op: 'addIceCandidates', sessionId, sdpFragment: frag });
    const badType = await t.app.inject({
      method: 'PATCH',
      url: location,
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(badType.statusCode).toBe(415);
    expect((await t.app.inject({ method: 'DELETE', url: location })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'DELETE', url: location })).statusCode).toBe(404);
  });

  it('a trailing slash on the endpoint and on the resource reaches the same routes', async () => {
    const { path, vt, sessionId } = await setup();
    const post = await t.app.inject({
      method: 'POST',
      url: `${path}/?vt=${vt}`,
      headers: sdpHeaders,
      payload: OFFER,
    });
    expect(post.statusCode).toBe(201);
    const location = post.headers['location'] as string;
    expect(location).toMatch(new RegExp(`^/v1/avatar-session/${sessionId}/whep/[\\w-]{22}$`));
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `${location}/`,
      headers: { 'content-type': 'application/trickle-ice-sdpfrag' },
      payload: 'a=end-of-candidates\r\n',
    });
    expect(patch.statusCode).toBe(204);
    expect((await t.app.inject({ method: 'DELETE', url: `${location}/` })).statusCode).toBe(200);
    // the endpoint with a slash is not a resource with an empty viewer id
    const del = await t.app.inject({ method: 'DELETE', url: `${path}/` });
    expect(del.statusCode).toBe(405);
    expect(del.headers['allow']).toBe('POST');
  });

  it('a new viewer replaces the previous one', async () => {
    const { whepPath } = await setup();
    const a = await t.app.inject({ method: 'POST', url: whepPath, headers: sdpHeaders, payload: OFFER });
    const b = await t.app.inject({ method: 'POST', url: whepPath, headers: sdpHeaders, payload: OFFER });
    expect(b.statusCode).toBe(201);
    expect((await t.app.inject({ method: 'DELETE', url: a.headers['location'] as string })).statusCode).toBe(
      404,
    );
    expect((await t.app.inject({ method: 'DELETE', url: b.headers['location'] as string })).statusCode).toBe(
      200,
    );
  });

  it('wrong content type → 415; not SDP → 400; H.264-only offer → 422', async () => {
    const { whepPath } = await setup();
    const json = await t.app.inject({
      method: 'POST',
      url: whepPath,
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(json.statusCode).toBe(415);
    expect(json.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const empty = await t.app.inject({ method: 'POST', url: whepPath });
    expect(empty.statusCode).toBe(415);
    const junk = await t.app.inject({ method: 'POST', url: whepPath, headers: sdpHeaders, payload: 'hello' });
    expect(junk.statusCode).toBe(400);
    const h264 = await t.app.inject({
      method: 'POST',
      url: whepPath,
      headers: sdpHeaders,
      payload: OFFER.replace('VP8', 'H264'),
    });
    expect(h264.statusCode).toBe(422);
    expect(h264.json().code).toBe('UNSUPPORTED_OFFER');
  });

  it('404 for an unknown session, 410 once the session ended (POST, PATCH and DELETE)', async () => {
    const { whepPath, sessionId, token } = await setup();
    const post = await t.app.inject({ method: 'POST', url: whepPath, headers: sdpHeaders, payload: OFFER });
    const location = post.headers['location'] as string;
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/v1/avatar-session/AAAAAAAAAAAAAAAAAAAAAA/whep',
      headers: { ...sdpHeaders, authorization: `Bearer ${token}` },
      payload: OFFER,
    });
    expect(unknown.statusCode).toBe(404);
    await t.post(`/v1/avatar-session/${sessionId}/end`, token);
    expect(
      (await t.app.inject({ method: 'POST', url: whepPath, headers: sdpHeaders, payload: OFFER })).statusCode,
    ).toBe(410);
    expect((await t.app.inject({ method: 'DELETE', url: location })).statusCode).toBe(410);
    const patch = await t.app.inject({
      method: 'PATCH',
      url: location,
      headers: { 'content-type': 'application/trickle-ice-sdpfrag' },
      payload: 'a=end-of-candidates\r\n',
    });
    expect(patch.statusCode).toBe(410);
  });

  it('OPTIONS preflight allows any origin with the WHEP headers exposed', async () => {
    const { whepPath } = await setup();
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: whepPath,
      headers: {
        origin: 'https://player.example.test',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,authorization',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://player.example.test');
    expect(String(res.headers['access-control-allow-methods'])).toContain('PATCH');
    expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
    const post = await t.app.inject({
      method: 'POST',
      url: whepPath,
      headers: { ...sdpHeaders, origin: 'https://player.example.test' },
      payload: OFFER,
    });
    expect(String(post.headers['access-control-expose-headers'])).toContain('Location');
  });

  it('only the token holder keeps a session alive: a viewer-token offer does not reset the idle clock', async () => {
    const { whepPath, path, sessionId, token } = await setup();
    t.clock.advance(20_000);
    expect(
      (await t.app.inject({ method: 'POST', url: whepPath, headers: sdpHeaders, payload: OFFER })).statusCode,
    ).toBe(201);
    t.clock.advance(10_000); // 30 s since the last token call
    await Promise.resolve();
    const after = await t.post(`/v1/avatar-session/${sessionId}/keep-alive`, token);
    expect(after.json()).toMatchObject({ code: 'SESSION_ENDED', reason: 'idle_timeout' });
    // with the Bearer token the same offer counts as activity
    const other = await t.createSession();
    t.clock.advance(20_000);
    const bearer = await t.app.inject({
      method: 'POST',
      url: path.replace(sessionId, other.sessionId),
      headers: { ...sdpHeaders, authorization: `Bearer ${other.token}` },
      payload: OFFER,
    });
    expect(bearer.statusCode).toBe(201);
    t.clock.advance(10_000);
    expect((await t.post(`/v1/avatar-session/${other.sessionId}/keep-alive`, other.token)).statusCode).toBe(
      200,
    );
  });

  it('a replaced viewer resource answers 404 (the engine knows its viewers)', async () => {
    const { whepPath } = await setup();
    const first = await t.app.inject({ method: 'POST', url: whepPath, headers: sdpHeaders, payload: OFFER });
    await t.app.inject({ method: 'POST', url: whepPath, headers: sdpHeaders, payload: OFFER });
    const gone = await t.app.inject({ method: 'DELETE', url: String(first.headers['location']) });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ code: 'NOT_FOUND' });
  });
});
