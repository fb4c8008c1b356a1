/**
 * `GET …/events` over real sockets, with the fake engine (the real engine session on null media)
 * played by the manual clock: what a backend reading the stream sees, in order, with ids; replay
 * after `Last-Event-ID`; the errors answered as JSON before a stream starts; the cap; and a client
 * that never reads, cut without costing the other streams anything.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_EVENT_STREAMS_PER_SESSION } from '@mouthpiece/protocol';
import { SseReader } from '../testing/sse-reader.js';
import { createTestApp, type TestApp } from '../testing/test-app.js';

let t: TestApp;
let origin: string;
const open: SseReader[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.cancel()));
  await t?.close();
});

async function setup(opts: Parameters<typeof createTestApp>[0] = {}) {
  t = await createTestApp({ msPerCharacter: 10, config: { idleTimeoutMs: 600_000 }, ...opts });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  return t.createSession();
}

function get(sessionId: string, token: string, headers: Record<string, string> = {}, query = '') {
  return fetch(`${origin}/v1/avatar-session/${sessionId}/events${query}`, {
    headers: { authorization: `Bearer ${token}`, ...headers },
  });
}

async function stream(sessionId: string, token: string, headers: Record<string, string> = {}, query = '') {
  const res = await get(sessionId, token, headers, query);
  expect(res.status, await (res.status === 200 ? '' : res.clone().text())).toBe(200);
  const r = new SseReader(res);
  open.push(r);
  return r;
}

const say = (s: { sessionId: string; token: string }, text: string, turnId: string) =>
  t.post(`/v1/avatar-session/${s.sessionId}/say-text`, s.token, { text, turnId, isFinal: true });

/** Waits (by turns of the event loop, not by time) until the server holds `n` streams of a session. */
async function streamsHeld(sessionId: string, n: number): Promise<void> {
  while (t.app.ctx.events.streams(sessionId) !== n) await new Promise((r) => setImmediate(r));
}

describe('session events', () => {
  it('carries a turn as speakingStart, word, speakingEnd, in order, with increasing ids', async () => {
    const s = await setup();
    const r = await stream(s.sessionId, s.token);
    expect(r.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(r.response.headers.get('cache-control')).toContain('no-cache');
    expect(r.response.headers.get('x-accel-buffering')).toBe('no');
    expect((await say(s, 'Hello there', 't1')).statusCode).toBe(200);
    expect((await say(s, 'Again', 't2')).statusCode).toBe(200);
    t.clock.advance(2000);
    await r.count(6);
    expect(r.events()).toEqual([
      { type: 'speakingStart', turnId: 't1' },
      { type: 'word', turnId: 't1', text: 'Hello there', offsetMs: 0 },
      { type: 'speakingEnd', turnId: 't1', interrupted: false },
      { type: 'speakingStart', turnId: 't2' },
      { type: 'word', turnId: 't2', text: 'Again', offsetMs: 0 },
      { type: 'speakingEnd', turnId: 't2', interrupted: false },
    ]);
    expect(r.messages.map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6]);
    // a turn said in two chunks: the second word's offset is from the turn's start (10 ms a character)
    const chunk = (text: string, isFinal: boolean) =>
      t.post(`/v1/avatar-session/${s.sessionId}/say-text`, s.token, { text, turnId: 't3', isFinal });
    await chunk('Part one ', false);
    await chunk('two', true);
    t.clock.advance(2000);
    await r.count(10);
    expect(r.events().slice(6)).toEqual([
      { type: 'speakingStart', turnId: 't3' },
      { type: 'word', turnId: 't3', text: 'Part one ', offsetMs: 0 },
      { type: 'word', turnId: 't3', text: 'two', offsetMs: 90 },
      { type: 'speakingEnd', turnId: 't3', interrupted: false },
    ]);
  });

  it('says interrupted: true when a turn is interrupted, and tells a viewer connecting and leaving', async () => {
    const s = await setup();
    const r = await stream(s.sessionId, s.token);
    await say(s, 'A long sentence that is still playing when it is interrupted', 't1');
    t.clock.advance(100);
    expect((await t.post(`/v1/avatar-session/${s.sessionId}/interrupt`, s.token, {})).statusCode).toBe(200);
    await r.count(3);
    expect(r.events()[2]).toEqual({ type: 'speakingEnd', turnId: 't1', interrupted: true });

    await t.app.ctx.engine.connectViewer(s.sessionId, { viewerId: 'v1', offerSdp: OFFER, iceServers: [] });
    await r.count(4);
    expect(r.events()[3]).toEqual({ type: 'viewer', state: 'connected' });
    await t.app.ctx.engine.disconnectViewer(s.sessionId, 'v1');
    await r.count(5);
    expect(r.events()[4]).toEqual({ type: 'viewer', state: 'lost' });
  });

  it('ends with sessionEnded and closes; the ended session then answers 410 JSON', async () => {
    const s = await setup();
    const a = await stream(s.sessionId, s.token);
    const b = await stream(s.sessionId, s.token);
    await say(s, 'Still talking when the session ends', 't1');
    t.clock.advance(100);
    expect((await t.post(`/v1/avatar-session/${s.sessionId}/end`, s.token, {})).statusCode).toBe(200);
    for (const r of [a, b]) {
      await r.toEnd();
      // the turn cut by the end gets no speakingEnd: sessionEnded is the last word
      expect(r.events()).toEqual([
        { type: 'speakingStart', turnId: 't1' },
        { type: 'word', turnId: 't1', text: 'Still talking when the session ends', offsetMs: 0 },
        { type: 'sessionEnded', reason: 'ended_by_client' },
      ]);
    }
    const again = await get(s.sessionId, s.token);
    expect(again.status).toBe(410);
    expect(await again.json()).toMatchObject({
      success: false,
      code: 'SESSION_ENDED',
      reason: 'ended_by_client',
    });
  });

  it('a session whose media failed ends its streams with reason engine_failed', async () => {
    const s = await setup();
    const r = await stream(s.sessionId, s.token);
    t.engine.failSession(s.sessionId);
    await r.toEnd();
    expect(r.events()).toEqual([{ type: 'sessionEnded', reason: 'engine_failed' }]);
  });

  it('an open stream does not keep the session alive: it ends idle_timeout like any other', async () => {
    const s = await setup({ config: { idleTimeoutMs: 30_000 } });
    const r = await stream(s.sessionId, s.token);
    t.clock.advance(29_000);
    expect((await t.post(`/v1/avatar-session/${s.sessionId}/keep-alive`, s.token, {})).statusCode).toBe(200);
    t.clock.advance(30_001);
    await r.toEnd();
    expect(r.events()).toEqual([{ type: 'sessionEnded', reason: 'idle_timeout' }]);
    expect(r.comments.filter((c) => c === 'heartbeat').length).toBeGreaterThanOrEqual(3);
  });

  it('a server closing ends every stream with sessionEnded server_restart', async () => {
    const s = await setup();
    const r = await stream(s.sessionId, s.token);
    await t.close();
    await r.toEnd();
    expect(r.events()).toEqual([{ type: 'sessionEnded', reason: 'server_restart' }]);
  });

  it('replays what came after Last-Event-ID (header or query), and everything kept after 0', async () => {
    const s = await setup();
    const first = await stream(s.sessionId, s.token);
    await say(s, 'One', 't1');
    t.clock.advance(1000);
    await first.count(3);
    await first.cancel();
    await streamsHeld(s.sessionId, 0);
    await say(s, 'Two', 't2'); // missed while away
    t.clock.advance(1000);

    const resumed = await stream(s.sessionId, s.token, { 'last-event-id': '2' });
    await resumed.count(4);
    expect(resumed.messages.map((m) => m.id)).toEqual([3, 4, 5, 6]);
    expect(resumed.events()[1]).toEqual({ type: 'speakingStart', turnId: 't2' });
    const byQuery = await stream(s.sessionId, s.token, {}, '?lastEventId=5');
    await byQuery.count(1);
    expect(byQuery.messages.map((m) => m.id)).toEqual([6]);
    const all = await stream(s.sessionId, s.token, { 'last-event-id': '0' });
    await all.count(6);
    expect(all.messages.map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6]);

    // live events follow the replay on each, once
    await say(s, 'Three', 't3');
    t.clock.advance(1000);
    for (const r of [resumed, byQuery, all]) await r.until((x) => x.messages.at(-1)?.id === 9);
    expect(all.messages.map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('a malformed or foreign Last-Event-ID is a 400 before any stream starts', async () => {
    const s = await setup();
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [{ 'last-event-id': 'abc' }, '', /whole number/],
      [{ 'last-event-id': '-1' }, '', /whole number/],
      [{ 'last-event-id': '1e3' }, '', /whole number/],
      [{}, '?lastEventId=x', /whole number/],
      [{}, '?lastEventId=1&lastEventId=2', /lastEventId/],
      [{ 'last-event-id': '1, 2' }, '', /whole number/],
      [{ 'last-event-id': '1' }, '?lastEventId=2', /send one/],
      [{ 'last-event-id': '7' }, '', /beyond this session's last event \(0\)/],
    ];
    for (const [headers, query, message] of cases) {
      const res = await get(s.sessionId, s.token, headers, query);
      expect(res.status, JSON.stringify([headers, query])).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/json');
      const body = (await res.json()) as { success: boolean; code: string; error: string };
      expect(body).toMatchObject({ success: false, code: 'INVALID_REQUEST' });
      expect(body.error).toMatch(message);
    }
    // a HEAD would hold a stream with nothing to read: the path is GET only
    const head = await fetch(`${origin}/v1/avatar-session/${s.sessionId}/events`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${s.token}` },
    });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET');
    expect(t.app.ctx.events.streams(s.sessionId)).toBe(0);
    // and the session is none the worse
    const r = await stream(s.sessionId, s.token);
    await say(s, 'Fine', 't1');
    t.clock.advance(1000);
    await r.count(3);
  });

  it(`caps the streams of a session at ${MAX_EVENT_STREAMS_PER_SESSION}: one more is a 429 saying to close one`, async () => {
    const s = await setup();
    const other = await t.createSession();
    const readers = [];
    for (let i = 0; i < MAX_EVENT_STREAMS_PER_SESSION; i++) readers.push(await stream(s.sessionId, s.token));
    const over = await get(s.sessionId, s.token);
    expect(over.status).toBe(429);
    const body = (await over.json()) as { code: string; error: string };
    expect(body.code).toBe('RATE_LIMITED');
    expect(body.error).toMatch(/close one/);
    await stream(other.sessionId, other.token); // another session's streams are its own
    await readers[0]!.cancel();
    await streamsHeld(s.sessionId, MAX_EVENT_STREAMS_PER_SESSION - 1);
    await stream(s.sessionId, s.token);
  });

  it('a page of any origin may open it with Last-Event-ID (the preflight allows the header)', async () => {
    const s = await setup();
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: `/v1/avatar-session/${s.sessionId}/events`,
      headers: {
        origin: 'https://agent.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization, last-event-id',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://agent.example');
    expect(String(res.headers['access-control-allow-headers'])).toContain('Last-Event-ID');
  });

  it('sends a comment heartbeat every heartbeat interval', async () => {
    const s = await setup({ eventStreams: { heartbeatMs: 5000 } });
    const r = await stream(s.sessionId, s.token);
    t.clock.advance(5000);
    await r.until((x) => x.comments.includes('heartbeat'));
    t.clock.advance(5000);
    await r.until((x) => x.comments.filter((c) => c === 'heartbeat').length === 2);
    expect(r.messages).toEqual([]);
  });

  it('cuts a client that never reads once its buffer passes the bound; other streams keep going', async () => {
    const s = await setup({ msPerCharacter: 0.001, eventStreams: { maxBufferedBytes: 64 * 1024 } });
    const other = await t.createSession();
    const reading = await stream(s.sessionId, s.token);
    const otherReading = await stream(other.sessionId, other.token);
    // a raw client that sends its request and never reads a byte of the answer
    const { port } = t.app.server.address() as { port: number };
    const stuck = net.connect(port, '127.0.0.1');
    stuck.pause();
    stuck.write(
      `GET /v1/avatar-session/${s.sessionId}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.token}\r\n\r\n`,
    );
    await streamsHeld(s.sessionId, 2);
    const word = 'w'.repeat(4000);
    let turns = 0;
    // kilobytes per turn, until the kernel's buffers are full and the server's passes the bound
    while (t.app.ctx.events.streams(s.sessionId) === 2) {
      for (let i = 0; i < 10; i++) expect((await say(s, word, `t${turns++}`)).statusCode).toBe(200);
      t.clock.advance(1000);
      await reading.until((x) => x.messages.length === turns * 3);
      expect(turns).toBeLessThan(20_000);
    }
    stuck.destroy();
    expect(t.app.ctx.events.streams(s.sessionId)).toBe(1);
    // the reading stream of the same session and another session's both go on
    await say(s, 'after', 'last');
    await say(other, 'other', 'o1');
    t.clock.advance(1000);
    await reading.until(
      (x) => x.events().at(-1)?.type === 'speakingEnd' && x.messages.length === turns * 3 + 3,
    );
    await otherReading.count(3);
    expect(otherReading.events()[1]).toEqual({ type: 'word', turnId: 'o1', text: 'other', offsetMs: 0 });
  });
});

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
