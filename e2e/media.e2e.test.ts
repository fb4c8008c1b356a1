/**
 * The media path as a user sees it: real server, real engine process, real Chromium over WHEP.
 * Assertions are counters that rise and levels that differ, never rates or timings.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type TestBrowser } from './harness/browser.js';
import { requireE2eEnvironment, startServer, type TestServer } from './harness/server.js';

declare global {
  interface Window {
    mpTest: {
      connect(o: {
        whepUrl: string;
        iceServers?: RTCIceServer[];
        relay?: boolean;
        dataChannel?: boolean;
      }): Promise<{ status: number; location?: string; body?: string }>;
      stats(): Promise<{
        framesDecoded: number;
        audioPackets: number;
        candidateType: string | null;
        width: number;
        height: number;
        connection: string;
      }>;
      peakRms(ms: number): Promise<number>;
      audioRms(): number;
      mouthMotion(ms: number): Promise<number>;
      waitFor(pred: () => unknown, ms?: number): Promise<boolean>;
      events: Array<{ type: string; turnId?: string; interrupted?: boolean; text?: string; reason?: string }>;
      close(): Promise<void>;
    };
  }
}

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

async function connectedPage(): Promise<{ page: Page; sessionId: string; token: string }> {
  const { sessionId, token } = await server.createSession();
  const init = await server.initClient(sessionId, token);
  const page = await browser.newPage(server.url);
  const r = await page.evaluate((whepUrl) => window.mpTest.connect({ whepUrl }), init.whepUrl);
  expect(r.status).toBe(201);
  const ok = await page.evaluate(() =>
    window.mpTest.waitFor(async () => (await window.mpTest.stats()).framesDecoded > 0, 15000),
  );
  expect(ok).toBe(true);
  return { page, sessionId, token };
}

const framesIn = async (page: Page, ms: number): Promise<number> => {
  const a = (await page.evaluate(() => window.mpTest.stats())).framesDecoded;
  await page.waitForTimeout(ms);
  return (await page.evaluate(() => window.mpTest.stats())).framesDecoded - a;
};

describe('media in a real browser', () => {
  it('streams video frames and audio packets with the hello message on the data channel', async () => {
    const { page, sessionId } = await connectedPage();
    // audio and video share one stream, so the browser keeps them in sync
    const [tracks, streams] = await page.evaluate(() => {
      const sdp = (window as unknown as { mpTest: { pc: RTCPeerConnection } }).mpTest.pc.remoteDescription!
        .sdp;
      const msids = [...sdp.matchAll(/^a=msid:(\S+) (\S+)$/gm)];
      return [msids.length, new Set(msids.map((m) => m[1])).size];
    });
    expect(tracks).toBe(2);
    expect(streams).toBe(1);
    const received = await page.evaluate(async () => {
      const pc = (window as unknown as { mpTest: { pc: RTCPeerConnection } }).mpTest.pc;
      return pc.getReceivers().map((r) => r.track.kind);
    });
    expect(received.sort()).toEqual(['audio', 'video']);
    expect(await framesIn(page, 2000)).toBeGreaterThanOrEqual(10);
    const s = await page.evaluate(() => window.mpTest.stats());
    expect(s.width).toBe(512);
    expect(s.audioPackets).toBeGreaterThan(0);
    const events = await page.evaluate(() => window.mpTest.events);
    expect(events[0]).toMatchObject({ type: 'hello', sessionId });
    await page.close();
  });

  it('say-text: speakingStart arrives, received audio rises, the mouth moves more than when idle, words and speakingEnd follow', async () => {
    const { page, sessionId, token } = await connectedPage();
    const idleRms = await page.evaluate(() => window.mpTest.peakRms(800));
    const idleMouth = await page.evaluate(() => window.mpTest.mouthMotion(1200));
    const r = await server.api(`/v1/avatar-session/${sessionId}/say-text`, {
      token,
      json: {
        text: 'Hello there, I am a talking avatar and I am speaking to you right now.',
        turnId: 'turn-1',
      },
    });
    expect(r.status).toBe(200);
    expect(
      await page.evaluate(() =>
        window.mpTest.waitFor(() => window.mpTest.events.some((e) => e.type === 'speakingStart'), 10000),
      ),
    ).toBe(true);
    expect(
      await page.evaluate(
        (floor) => window.mpTest.waitFor(() => window.mpTest.audioRms() > floor, 8000),
        Math.max(0.02, idleRms * 3),
      ),
    ).toBe(true);
    const speakingMouth = await page.evaluate(() => window.mpTest.mouthMotion(1500));
    expect(speakingMouth).toBeGreaterThan(idleMouth * 1.5 + 0.5);
    expect(
      await page.evaluate(() =>
        window.mpTest.waitFor(() => window.mpTest.events.some((e) => e.type === 'speakingEnd'), 15000),
      ),
    ).toBe(true);
    const events = await page.evaluate(() => window.mpTest.events);
    const types = events.map((e) => e.type);
    expect(types.indexOf('speakingStart')).toBeLessThan(types.indexOf('speakingEnd'));
    expect(
      events
        .filter((e) => e.type === 'word')
        .map((e) => e.text)
        .slice(0, 3),
    ).toEqual(['Hello', 'there', 'I']);
    expect(events.find((e) => e.type === 'speakingEnd')).toMatchObject({
      turnId: 'turn-1',
      interrupted: false,
    });
    await page.close();
  });

  it('say-audio: an uploaded MP3 is decoded, spoken and lip-synced; junk answers 400', async () => {
    const { page, sessionId, token } = await connectedPage();
    const mp3 = readFileSync(
      new URL('../packages/engine/test-fixtures/audio/speech-44k.mp3', import.meta.url),
    );
    const form = new FormData();
    form.append('turnId', 'upload-1');
    form.append('duration', '1.6');
    form.append('audio', new Blob([mp3], { type: 'audio/mpeg' }), 'speech.mp3');
    const r = await server.api(`/v1/avatar-session/${sessionId}/say-audio`, { token, body: form });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { decodedDuration: number };
    expect(body.decodedDuration).toBeGreaterThan(1);
    expect(
      await page.evaluate(() =>
        window.mpTest.waitFor(
          () => window.mpTest.events.some((e) => e.type === 'speakingStart' && e.turnId === 'upload-1'),
          10000,
        ),
      ),
    ).toBe(true);
    expect(
      await page.evaluate(() => window.mpTest.waitFor(() => window.mpTest.audioRms() > 0.02, 8000)),
    ).toBe(true);
    const junk = new FormData();
    junk.append('turnId', 'junk');
    junk.append('duration', '1');
    junk.append('audio', new Blob([new Uint8Array(5000).fill(7)]), 'blob');
    const bad = await server.api(`/v1/avatar-session/${sessionId}/say-audio`, { token, body: junk });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^Invalid audio file/);
    await page.close();
  });

  it('interrupt stops speech: speakingEnd(interrupted) and the received audio falls silent', async () => {
    const { page, sessionId, token } = await connectedPage();
    const long = 'This is a long sentence that keeps going. '.repeat(12);
    await server.api(`/v1/avatar-session/${sessionId}/say-text`, {
      token,
      json: { text: long, turnId: 'long' },
    });
    await server.api(`/v1/avatar-session/${sessionId}/say-text`, {
      token,
      json: { text: 'And this one is queued.', turnId: 'next' },
    });
    expect(
      await page.evaluate(() =>
        window.mpTest.waitFor(() => window.mpTest.events.some((e) => e.type === 'speakingStart'), 10000),
      ),
    ).toBe(true);
    expect(await page.evaluate(() => window.mpTest.peakRms(600))).toBeGreaterThan(0.02);
    const r = await server.api(`/v1/avatar-session/${sessionId}/interrupt`, { token, json: {} });
    expect(r.status).toBe(200);
    expect(
      await page.evaluate(() =>
        window.mpTest.waitFor(
          () => window.mpTest.events.some((e) => e.type === 'speakingEnd' && e.interrupted),
          5000,
        ),
      ),
    ).toBe(true);
    await page.waitForTimeout(400); // jitter buffer drains
    expect(await page.evaluate(() => window.mpTest.peakRms(1000))).toBeLessThan(0.01);
    const starts = (await page.evaluate(() => window.mpTest.events)).filter(
      (e) => e.type === 'speakingStart',
    );
    expect(starts.map((e) => e.turnId)).toEqual(['long']); // the queued turn was cleared too
    await page.close();
  });

  it('end stops media and later calls answer 410', async () => {
    const { page, sessionId, token } = await connectedPage();
    const r = await server.api(`/v1/avatar-session/${sessionId}/end`, { token, json: {} });
    expect(r.status).toBe(200);
    expect(
      await page.evaluate(() =>
        window.mpTest.waitFor(() => window.mpTest.events.some((e) => e.type === 'sessionEnded'), 5000),
      ),
    ).toBe(true);
    await page.waitForTimeout(500);
    expect(await framesIn(page, 1500)).toBeLessThanOrEqual(1);
    expect((await server.api(`/v1/avatar-session/${sessionId}/keep-alive`, { token, json: {} })).status).toBe(
      410,
    );
    await page.close();
  });
});
