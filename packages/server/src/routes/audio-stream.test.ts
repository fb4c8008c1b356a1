/**
 * The audio WebSocket against the fake engine (the real engine session on null media, ticked by
 * the test's manual clock) over a real socket: auth before the upgrade, a turn streamed and
 * played, and each kind of bad input answered with an error that leaves the socket usable and
 * other sessions untouched.
 */
import { connect as tcpConnect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  AUDIO_STREAM_MAX_BUFFERED_MS,
  AUDIO_STREAM_MAX_TEXT_BYTES,
  TURN_AUTO_FINALIZE_MS,
  parseAudioStreamServerMessage,
  type AudioStreamServerMessage,
} from '@mouthpiece/protocol';
import { createTestApp, type TestApp } from '../testing/test-app.js';

let t: TestApp;
let base = '';
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  await t?.close();
});

async function start(): Promise<void> {
  t = await createTestApp();
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = address.replace(/^http/, 'ws');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `ms` of a tone at `rate` as s16le bytes. */
function tone(ms: number, rate = 24000): Buffer {
  const n = Math.round((ms * rate) / 1000);
  const b = Buffer.alloc(2 * n);
  for (let i = 0; i < n; i++)
    b.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 220 * i) / rate)), 2 * i);
  return b;
}

interface Client {
  ws: WebSocket;
  messages: AudioStreamServerMessage[];
  /** Waits (advancing the manual clock by `stepMs` between looks) for a message matching `pred`. */
  next(pred: (m: AudioStreamServerMessage) => boolean, stepMs?: number): Promise<AudioStreamServerMessage>;
  json(v: unknown): void;
}

async function connect(sessionId: string, token: string): Promise<Client> {
  const ws = new WebSocket(`${base}/v1/avatar-session/${sessionId}/audio`, {
    headers: { authorization: `Bearer ${token}` },
  });
  sockets.push(ws);
  const messages: AudioStreamServerMessage[] = [];
  ws.on('message', (data, isBinary) => {
    if (!isBinary) messages.push(parseAudioStreamServerMessage((data as Buffer).toString('utf8'))!);
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let seen = 0;
  return {
    ws,
    messages,
    json: (v) => ws.send(JSON.stringify(v)),
    async next(pred, stepMs = 10) {
      for (let i = 0; i < 3000; i++) {
        const found = messages.slice(seen).find(pred);
        if (found) {
          seen = messages.indexOf(found) + 1;
          return found;
        }
        t.clock.advance(stepMs);
        await sleep(1);
      }
      throw new Error(`no such message; got ${JSON.stringify(messages)}`);
    },
  };
}

/** The status and JSON body of an upgrade the server refused. */
function refused(url: string, headers: Record<string, string>): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    sockets.push(ws);
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
    });
    ws.on('open', () => reject(new Error('upgraded')));
    ws.on('error', () => undefined);
  });
}

describe('GET /v1/avatar-session/{id}/audio', () => {
  it('answers 401, 404 and 410 as JSON before upgrading', async () => {
    await start();
    const { sessionId, token } = await t.createSession();
    const url = `${base}/v1/avatar-session/${sessionId}/audio`;
    expect(await refused(url, {})).toMatchObject({
      status: 401,
      body: { success: false, code: 'INVALID_TOKEN' },
    });
    const other = `${base}/v1/avatar-session/s_unknown0000000000000000/audio`;
    expect((await refused(other, { authorization: `Bearer ${token}` })).status).toBeGreaterThanOrEqual(401);
    await t.post(`/v1/avatar-session/${sessionId}/end`, token);
    expect(await refused(url, { authorization: `Bearer ${token}` })).toMatchObject({
      status: 410,
      body: { success: false, code: 'SESSION_ENDED' },
    });
  });

  it('an upgrade on another path is answered and its connection closed by the server', async () => {
    await start();
    const port = Number(new URL(base.replace(/^ws/, 'http')).port);
    for (const path of ['/healthz', '/v1/avatar-session/x/say-text', '/nope']) {
      const answer = await new Promise<string>((resolve, reject) => {
        const s = tcpConnect(port, '127.0.0.1', () =>
          s.write(
            `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
              'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
          ),
        );
        let got = '';
        s.on('data', (d: Buffer) => (got += d.toString()));
        s.on('close', () => resolve(got.split('\r\n')[0]!));
        setTimeout(() => reject(new Error(`${path}: still open`)), 5000).unref();
      });
      expect(answer).toMatch(/^HTTP\/1\.1 (200|404|405)/);
    }
  });

  it('plays a streamed turn after the text turn queued before it, and reports it', async () => {
    await start();
    const { sessionId, token } = await t.createSession();
    expect(
      (await t.post(`/v1/avatar-session/${sessionId}/say-text`, token, { text: 'Hi.', turnId: 'x' }))
        .statusCode,
    ).toBe(200);
    const c = await connect(sessionId, token);
    c.json({ type: 'start', turnId: 'a1', sampleRate: 24000 });
    for (let i = 0; i < 50; i++) c.ws.send(tone(20)); // 1 s
    c.json({ type: 'end', turnId: 'a1' });
    expect(await c.next((m) => m.type === 'playbackStarted')).toEqual({
      type: 'playbackStarted',
      turnId: 'a1',
    });
    const done = await c.next((m) => m.type === 'playbackFinished');
    expect(done).toMatchObject({ turnId: 'a1', interrupted: false });
    expect(done.type === 'playbackFinished' && Math.abs(done.playedMs - 1000)).toBeLessThanOrEqual(20);
    const order = t.engine.events
      .filter((e) => e.type === 'speakingStart')
      .map((e) => 'turnId' in e && e.turnId);
    expect(order).toEqual(['x', 'a1']);
  });

  it('answers bad frames with an error and stays usable', async () => {
    await start();
    const { sessionId, token } = await t.createSession();
    const c = await connect(sessionId, token);
    c.json({ type: 'shout' });
    expect(await c.next((m) => m.type === 'error')).toMatchObject({ code: 'bad_message' });
    c.ws.send('not json');
    expect(await c.next((m) => m.type === 'error')).toMatchObject({ code: 'bad_message' });
    c.ws.send('x'.repeat(AUDIO_STREAM_MAX_TEXT_BYTES + 1));
    expect(await c.next((m) => m.type === 'error')).toMatchObject({ code: 'bad_message' });
    c.ws.send(tone(20));
    expect(await c.next((m) => m.type === 'error')).toMatchObject({ code: 'no_turn' });
    c.json({ type: 'start', turnId: 'r', sampleRate: 11025 });
    const rate = await c.next((m) => m.type === 'error');
    expect(rate).toMatchObject({ code: 'bad_sample_rate' });
    expect(rate.type === 'error' && rate.message).toContain('24000');
    c.json({ type: 'end', turnId: 'nothing-open' });
    expect(await c.next((m) => m.type === 'error')).toMatchObject({ code: 'no_turn' });
    // still usable: a good turn plays
    c.json({ type: 'start', turnId: 'ok', sampleRate: 16000 });
    c.json({ type: 'start', turnId: 'again', sampleRate: 16000 });
    expect(await c.next((m) => m.type === 'error')).toMatchObject({ code: 'turn_open' });
    c.ws.send(tone(300, 16000));
    c.json({ type: 'end', turnId: 'ok' });
    expect(await c.next((m) => m.type === 'playbackFinished')).toMatchObject({
      turnId: 'ok',
      interrupted: false,
    });
    // a used turn id is refused
    c.json({ type: 'start', turnId: 'ok', sampleRate: 16000 });
    expect(await c.next((m) => m.type === 'error')).toMatchObject({ code: 'turn_exists', turnId: 'ok' });
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('clear interrupts the turn playing (and the session queue)', async () => {
    await start();
    const { sessionId, token } = await t.createSession();
    const c = await connect(sessionId, token);
    c.json({ type: 'start', turnId: 'long', sampleRate: 24000 });
    c.ws.send(tone(3000));
    await c.next((m) => m.type === 'playbackStarted');
    c.json({ type: 'clear' });
    const done = await c.next((m) => m.type === 'playbackFinished', 1);
    expect(done).toMatchObject({ turnId: 'long', interrupted: true });
    expect(done.type === 'playbackFinished' && done.playedMs).toBeLessThan(3000);
    expect(t.engine.calls.some((x) => x.op === 'interrupt' && x.sessionId === sessionId)).toBe(true);
  });

  it('a socket that never sends end: the turn ends after TURN_AUTO_FINALIZE_MS of silence', async () => {
    await start();
    const { sessionId, token } = await t.createSession();
    const c = await connect(sessionId, token);
    c.json({ type: 'start', turnId: 'mute', sampleRate: 24000 });
    c.ws.send(tone(200));
    await c.next((m) => m.type === 'playbackStarted');
    const since = t.clock.now();
    const finished = await c.next((m) => m.type === 'playbackFinished', 100);
    expect(finished).toMatchObject({ turnId: 'mute', interrupted: false });
    expect(finished.type === 'playbackFinished' && Math.abs(finished.playedMs - 200)).toBeLessThanOrEqual(20);
    expect(t.clock.now() - since).toBeGreaterThanOrEqual(TURN_AUTO_FINALIZE_MS - 1000);
  });

  it('a 200 MB stream is read at the pace it plays, gets turn_too_long, and costs another session nothing', async () => {
    await start();
    const a = await t.createSession();
    const b = await t.createSession();
    const c = await connect(a.sessionId, a.token);
    c.json({ type: 'start', turnId: 'flood', sampleRate: 48000 });
    const frame = tone(680, 48000); // 64 KiB
    let sent = 0;
    let maxBuffered = 0;
    let otherSpoke = false;
    while (sent < 200 * 1024 * 1024) {
      c.ws.send(frame);
      sent += frame.length;
      while (c.ws.bufferedAmount > 4 * 1024 * 1024) {
        const probe = await t.engine.writeAudioTurn(a.sessionId, 'flood', new Uint8Array(0));
        maxBuffered = Math.max(maxBuffered, probe.bufferedMs);
        t.clock.advance(2000);
        await sleep(10); // the server asks again (on the clock, every 50 ms) whether it drained
      }
      if (sent === 100 * frame.length) {
        const r = await t.post(`/v1/avatar-session/${b.sessionId}/say-text`, b.token, {
          text: 'Still here.',
        });
        otherSpoke = r.statusCode === 200;
      }
    }
    const tooLong = await c.next((m) => m.type === 'error', 100);
    expect(tooLong).toMatchObject({ code: 'turn_too_long', turnId: 'flood' });
    expect(otherSpoke).toBe(true);
    expect(t.engine.events.some((e) => e.type === 'speakingStart' && e.sessionId === b.sessionId)).toBe(true);
    // held back: never more than the limit plus what one megabyte in flight holds (≈ 11 s at 48 kHz)
    expect(maxBuffered).toBeGreaterThan(AUDIO_STREAM_MAX_BUFFERED_MS / 2);
    expect(maxBuffered).toBeLessThan(AUDIO_STREAM_MAX_BUFFERED_MS + 12_000);
    c.json({ type: 'end', turnId: 'flood' });
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
  }, 120_000);

  it('the session ending closes its sockets with session_ended', async () => {
    await start();
    const { sessionId, token } = await t.createSession();
    const c = await connect(sessionId, token);
    const closed = new Promise<number>((r) => c.ws.once('close', (code) => r(code)));
    await t.post(`/v1/avatar-session/${sessionId}/end`, token);
    expect(await c.next((m) => m.type === 'error')).toMatchObject({ code: 'session_ended', fatal: true });
    expect(await closed).toBe(1000);
  });
});
