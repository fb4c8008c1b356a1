/**
 * Streamed audio in (GET /v1/avatar-session/{id}/audio): a backend streams speech PCM over the
 * WebSocket at real time while real Chromium watches over WHEP. The viewer hears it and the mouth
 * moves while it streams; playback starts before the turn's `end`; bad input on another socket
 * of the same session, and a refused upgrade, change nothing for it.
 * Assertions are counters and levels, never timings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import WebSocket from 'ws';
import { openAudioStream, speechPcm, streamTurn } from './harness/audio-stream.js';
import { launchBrowser, type TestBrowser } from './harness/browser.js';
import { requireE2eEnvironment, startServer, type TestServer } from './harness/server.js';

interface MpTest {
  connect(o: { whepUrl: string }): Promise<{ status: number }>;
  stats(): Promise<{ framesDecoded: number; audioPackets: number }>;
  peakRms(ms: number): Promise<number>;
  mouthMotion(ms: number): Promise<number>;
  waitFor(pred: () => unknown, ms?: number): Promise<boolean>;
}
type W = { mpTest: MpTest };

let server: TestServer;
let browser: TestBrowser;

beforeAll(async () => {
  requireE2eEnvironment();
  server = await startServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function watched(): Promise<{ page: Page; sessionId: string; token: string }> {
  const { sessionId, token } = await server.createSession();
  const init = await server.initClient(sessionId, token);
  const page = await browser.newPage(server.url);
  expect(
    (await page.evaluate((whepUrl) => (window as unknown as W).mpTest.connect({ whepUrl }), init.whepUrl))
      .status,
  ).toBe(201);
  expect(
    await page.evaluate(() =>
      (window as unknown as W).mpTest.waitFor(
        async () => (await (window as unknown as W).mpTest.stats()).framesDecoded > 0,
        15000,
      ),
    ),
  ).toBe(true);
  return { page, sessionId, token };
}

describe('streamed audio in, at a real browser', () => {
  it('plays speech streamed at real time before its end, with the mouth moving, and reports it', async () => {
    const { page, sessionId, token } = await watched();
    const idleRms = await page.evaluate(() => (window as unknown as W).mpTest.peakRms(800));
    const idleMouth = await page.evaluate(() => (window as unknown as W).mpTest.mouthMotion(1200));
    const speech = speechPcm();
    const pcm = Buffer.concat([speech.pcm, speech.pcm, speech.pcm]); // ≈ 5 s
    const c = await openAudioStream(server.url, sessionId, token);
    // bad input on a second socket of the same session costs the first nothing
    const bad = await openAudioStream(server.url, sessionId, token);
    bad.ws.send(Buffer.alloc(960));
    bad.json({ type: 'start', turnId: 'b', sampleRate: 12345 });
    bad.json({ type: 'nonsense' });
    const measured = page.evaluate(
      ([floor]) =>
        Promise.all([
          (window as unknown as W).mpTest
            .waitFor(() => false, 1000)
            .then(() => (window as unknown as W).mpTest.peakRms(2500)),
          new Promise<number>((r) => setTimeout(r, 1200)).then(() =>
            (window as unknown as W).mpTest.mouthMotion(1500),
          ),
        ]).then(([rms, mouth]) => ({ rms, mouth, floor })),
      [Math.max(0.02, idleRms * 3)] as const,
    );
    const sent = streamTurn(c, {
      turnId: 's1',
      sampleRate: speech.sampleRate,
      pcm,
      chunkMs: 40,
      jitterMs: 20,
    });
    const started = await c.waitFor((m) => m.type === 'playbackStarted');
    const { endSentAt } = await sent;
    expect(started.at).toBeLessThan(endSentAt); // it played while streaming, not at end
    const { rms, mouth, floor } = await measured;
    expect(rms).toBeGreaterThan(floor);
    expect(mouth).toBeGreaterThan(idleMouth * 1.5 + 0.5);
    const finished = await c.waitFor((m) => m.type === 'playbackFinished');
    expect(finished).toMatchObject({ turnId: 's1', interrupted: false });
    const durationMs = (1000 * pcm.length) / 2 / speech.sampleRate;
    expect(finished.type === 'playbackFinished' && Math.abs(finished.playedMs - durationMs)).toBeLessThan(50);
    const codes = bad.messages.map((m) => (m.type === 'error' ? m.code : m.type));
    expect(codes).toEqual(['no_turn', 'bad_sample_rate', 'bad_message']);
    c.close();
    bad.close();
    await page.close();
  });

  it('clear stops a streamed turn at the viewer; an upgrade without a token is refused with 401', async () => {
    const { page, sessionId, token } = await watched();
    const speech = speechPcm();
    const c = await openAudioStream(server.url, sessionId, token);
    const pcm = Buffer.concat([speech.pcm, speech.pcm, speech.pcm, speech.pcm]);
    void streamTurn(c, { turnId: 'long', sampleRate: speech.sampleRate, pcm, chunkMs: 100, end: false });
    await c.waitFor((m) => m.type === 'playbackStarted');
    await page.waitForTimeout(800);
    c.json({ type: 'clear' });
    const finished = await c.waitFor((m) => m.type === 'playbackFinished');
    expect(finished).toMatchObject({ turnId: 'long', interrupted: true });
    await page.waitForTimeout(300);
    const after = await page.evaluate(() => (window as unknown as W).mpTest.peakRms(1000));
    expect(after).toBeLessThan(0.02);
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/v1/avatar-session/${sessionId}/audio`);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => undefined);
    });
    expect(status).toBe(401);
    c.close();
    await page.close();
  });
});
