/**
 * Provider voices in a real browser: the real server and engine process speak through stand-ins
 * of the OpenAI and ElevenLabs APIs (real sockets, streamed espeak-ng speech in another voice).
 * The voice is heard, the mouth moves with it, interrupt closes the upstream request, a provider
 * failure gives turnFailed while the session and /readyz live on, and the keys never reach the
 * logs. Assertions are counters and levels, never timings.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { elevenLabsStandin, openAiStandin, type VoiceStandin } from '@mouthpiece/engine/testing';
import { launchBrowser, type TestBrowser } from './harness/browser.js';
import { requireE2eEnvironment, startServer, type TestServer, readMetrics } from './harness/server.js';

const SECRET_TEXT = 'The launch code word is marmalade.';
let server: TestServer;
let browser: TestBrowser;
let openai: VoiceStandin;
let eleven: VoiceStandin;
let dir: string;

beforeAll(async () => {
  requireE2eEnvironment();
  openai = await openAiStandin();
  eleven = await elevenLabsStandin();
  dir = mkdtempSync(join(tmpdir(), 'mp-voices-'));
  const voicesFile = join(dir, 'voices.json');
  writeFileSync(
    voicesFile,
    JSON.stringify({
      voices: [
        {
          id: 'kokoro-heart',
          provider: 'openai',
          providerVoice: 'af_heart',
          model: 'kokoro',
          name: 'Heart',
          language: 'en-US',
          gender: 'female',
        },
        {
          id: 'el-adam',
          provider: 'elevenlabs',
          providerVoice: 'pNInz6obpgDQGcFmaJgB',
          name: 'Adam',
          language: 'en-US',
          gender: 'male',
        },
      ],
    }),
  );
  server = await startServer({
    MOUTHPIECE_VOICES_FILE: voicesFile,
    MOUTHPIECE_OPENAI_TTS_URL: openai.url,
    MOUTHPIECE_OPENAI_TTS_API_KEY: openai.settings.apiKey,
    MOUTHPIECE_ELEVENLABS_URL: eleven.url,
    MOUTHPIECE_ELEVENLABS_API_KEY: eleven.settings.apiKey,
    MOUTHPIECE_VOICE_TIMEOUT_MS: '3000',
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await openai?.close();
  await eleven?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function connected(voiceId: string): Promise<{ page: Page; sessionId: string; token: string }> {
  const { sessionId, token } = await server.createSession({
    visualConfig: { avatarId: 'amara' },
    voiceConfig: { id: voiceId },
  });
  const init = await server.initClient(sessionId, token);
  const page = await browser.newPage(server.url);
  expect((await page.evaluate((whepUrl) => window.mpTest.connect({ whepUrl }), init.whepUrl)).status).toBe(
    201,
  );
  expect(
    await page.evaluate(() =>
      window.mpTest.waitFor(async () => (await window.mpTest.stats()).framesDecoded > 0, 15000),
    ),
  ).toBe(true);
  return { page, sessionId, token };
}

const waitEvent = (page: Page, type: string, turnId: string, ms = 15000): Promise<boolean> =>
  page.evaluate(
    ({ type, turnId, ms }) =>
      window.mpTest.waitFor(
        () => window.mpTest.events.some((e) => e.type === type && e.turnId === turnId),
        ms,
      ),
    { type, turnId, ms },
  );

describe('provider voices in a real browser', () => {
  it('lists the configured providers’ voices with their provider, never a key or a URL', async () => {
    const r = await server.api('/v1/voices', { method: 'GET', ks: server.secret });
    const body = await r.text();
    const voices = (JSON.parse(body) as { voices: Array<{ id: string; provider: string }> }).voices;
    expect(voices).toContainEqual(expect.objectContaining({ id: 'kokoro-heart', provider: 'openai' }));
    expect(voices).toContainEqual(expect.objectContaining({ id: 'el-adam', provider: 'elevenlabs' }));
    expect(voices).toContainEqual(expect.objectContaining({ id: 'en-us-female', provider: 'espeak' }));
    expect(voices).toContainEqual(expect.objectContaining({ id: 'en-us-natural-female', provider: 'flite' }));
    for (const s of [openai.settings.apiKey, eleven.settings.apiKey, openai.url, 'af_heart'])
      expect(body).not.toContain(s);
    // with ElevenLabs on, an unlisted ElevenLabs-shaped id is accepted (Kaltura clients send those)
    const create = (id: string): Promise<Response> =>
      server.api('/v1/avatar-session', {
        ks: server.secret,
        json: { visualConfig: { avatarId: 'amara' }, voiceConfig: { id } },
      });
    const el = await create('AbCdEfGhIjKlMnOpQrSt');
    expect(el.status).toBe(200);
    const { sessionId, token } = (await el.json()) as { sessionId: string; token: string };
    await server.api(`/v1/avatar-session/${sessionId}/end`, { token, json: {} });
    const unknown = await create('no such voice');
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { code: string }).code).toBe('UNKNOWN_VOICE');
  });

  for (const [voiceId, name] of [
    ['kokoro-heart', 'OpenAI-compatible'],
    ['el-adam', 'ElevenLabs'],
    ['en-us-natural-female', 'embedded Flite'],
  ] as const) {
    it(`${name}: the provider's voice is heard and the mouth moves with it`, async () => {
      const standin = voiceId === 'el-adam' ? eleven : voiceId === 'kokoro-heart' ? openai : undefined;
      const before = standin?.requests.length ?? 0;
      const { page, sessionId, token } = await connected(voiceId);
      const idleRms = await page.evaluate(() => window.mpTest.peakRms(600));
      const idleMouth = await page.evaluate(() => window.mpTest.mouthMotion(1000));
      const r = await server.api(`/v1/avatar-session/${sessionId}/say-text`, {
        token,
        json: { text: 'Hello from a natural voice. It streams in sentence by sentence.', turnId: 'p1' },
      });
      expect(r.status).toBe(200);
      expect(await waitEvent(page, 'speakingStart', 'p1')).toBe(true);
      expect(
        await page.evaluate(
          (floor) => window.mpTest.waitFor(() => window.mpTest.audioRms() > floor, 8000),
          Math.max(0.02, idleRms * 3),
        ),
      ).toBe(true);
      const speakingMouth = await page.evaluate(() => window.mpTest.mouthMotion(1200));
      expect(speakingMouth).toBeGreaterThan(idleMouth * 1.5 + 0.5);
      expect(await waitEvent(page, 'speakingEnd', 'p1')).toBe(true);
      // sentence by sentence: each was its own request to the provider
      if (standin) expect(standin.requests.length - before).toBeGreaterThanOrEqual(2);
      await page.close();
    });
  }

  it('interrupt closes the in-flight provider request and the audio falls silent', async () => {
    openai.settings.paceMs = 150; // slower than real time: the request is still streaming
    try {
      const { page, sessionId, token } = await connected('kokoro-heart');
      const before = openai.requests.length;
      await server.api(`/v1/avatar-session/${sessionId}/say-text`, {
        token,
        json: {
          text: 'This is a long sentence that keeps going and going for quite a while longer.',
          turnId: 'long',
        },
      });
      expect(await waitEvent(page, 'speakingStart', 'long')).toBe(true);
      expect(await page.evaluate(() => window.mpTest.peakRms(500))).toBeGreaterThan(0.02);
      expect(openai.requests.slice(before).some((q) => !q.finished && !q.closedEarly)).toBe(true);
      await server.api(`/v1/avatar-session/${sessionId}/interrupt`, { token, json: {} });
      expect(await waitEvent(page, 'speakingEnd', 'long', 5000)).toBe(true);
      const deadline = Date.now() + 3000;
      while (
        Date.now() < deadline &&
        !openai.requests.slice(before).every((q) => q.finished || q.closedEarly)
      )
        await new Promise((r) => setTimeout(r, 50));
      const mine = openai.requests.slice(before);
      expect(mine.some((q) => q.closedEarly)).toBe(true);
      expect(mine.every((q) => q.finished || q.closedEarly)).toBe(true);
      await page.waitForTimeout(400); // jitter buffer drains
      expect(await page.evaluate(() => window.mpTest.peakRms(800))).toBeLessThan(0.01);
      await page.close();
    } finally {
      openai.settings.paceMs = 10;
    }
  });

  it('a provider failure gives turnFailed; the session, /readyz and the next turn live on; no key or text in the logs', async () => {
    const { page, sessionId, token } = await connected('el-adam');
    eleven.settings.fault = 401;
    await server.api(`/v1/avatar-session/${sessionId}/say-text`, {
      token,
      json: { text: SECRET_TEXT, turnId: 'bad' },
    });
    expect(await waitEvent(page, 'turnFailed', 'bad')).toBe(true);
    const failed = (await page.evaluate(() => window.mpTest.events)).find((e) => e.type === 'turnFailed');
    expect(failed).toMatchObject({ turnId: 'bad', reason: 'unauthorized' });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    eleven.settings.fault = 'none';
    await server.api(`/v1/avatar-session/${sessionId}/say-text`, {
      token,
      json: { text: 'This one plays again.', turnId: 'good' },
    });
    expect(await waitEvent(page, 'speakingEnd', 'good')).toBe(true);
    const metrics = await readMetrics(server.url);
    expect(metrics).toMatch(
      /mouthpiece_voice_failures_total\{provider="elevenlabs",reason="unauthorized"\} [1-9]/,
    );
    expect(metrics).toMatch(/mouthpiece_voice_requests_total\{provider="openai"\} [1-9]/);
    const logs = server.logs.join('');
    expect(logs).toContain('a voice provider failed a turn');
    for (const secret of [eleven.settings.apiKey, openai.settings.apiKey, 'marmalade']) {
      expect(logs).not.toContain(secret);
      expect(metrics).not.toContain(secret);
    }
    await page.close();
  });
});
