/**
 * One real session watched by headless Chromium, for the media benchmarks: the server from the
 * built CLI, a page with the plain WHEP client and av-probe.js, and onset detection over the
 * probe's logs. Mouth opening is read from the received frames: dark pixels in the mouth box of
 * the avatar (mei, whose light skin keeps the mouth interior the only dark thing in the box).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launchBrowser, type TestBrowser } from '../../e2e/harness/browser.js';
import { startServer, type TestServer } from '../../e2e/harness/server.js';
import { BUILTIN_AVATARS_DIR, loadAvatarPack } from '../../packages/engine/dist/avatar/catalog.js';
import { geometry } from '../../packages/draw/dist/index.js';
import { vectorManifest } from '../../packages/engine/dist/avatar/manifest.js';

const PROBE = fileURLToPath(new URL('./av-probe.js', import.meta.url));
export const AVATAR = 'mei';
/** Received audio RMS above this is speech (idle is digital silence through Opus, ≈ 0). */
export const AUDIO_FLOOR = 0.02;

type Log = Array<[number, number]>;
export interface ProbeLogs {
  /** Analyser RMS of the received track in WebAudio. */
  audio: Log;
  /** The audio receiver's playout: [time played, audioLevel 0..1] per played packet. */
  playout: Log;
  frames: Log;
  /** The browser's audio output delay after playout (media-playout stats), when it reports one. */
  outputDelayMs?: number;
  events: Array<{ type: string; at: number; turnId?: string }>;
}

interface Probe {
  start(box: { x: number; y: number; w: number; h: number }, jitterBufferTargetMs?: number): void;
  since(t0: number): ProbeLogs;
  sayText(base: string, token: string, text: string, turnId: string, isFinal?: boolean): Promise<number>;
  sayAudio(base: string, token: string, b64: string, turnId: string, duration: number): Promise<number>;
  post(url: string, token: string): Promise<number>;
}
declare global {
  interface Window {
    mpProbe: Probe;
  }
}

export interface AvSession {
  server: TestServer;
  page: Page;
  base: string;
  token: string;
  /** Mouth-box dark-pixel counts while idle: the mouth is open when above `openAbove`. */
  idle: { min: number; max: number; mean: number };
  openAbove: number;
  /** The mouth has moved when its count leaves [moveBelow, moveAbove] (closing counts too). */
  moveBelow: number;
  moveAbove: number;
  restAtMost: number;
  sayText(text: string, turnId: string, isFinal?: boolean): Promise<number>;
  sayAudio(wav: Buffer, turnId: string, durationSec: number): Promise<number>;
  interrupt(): Promise<number>;
  logs(t0: number): Promise<ProbeLogs>;
  /** Interrupts and waits until the received audio has been quiet for 300 ms. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** First time at or after t0 where the value is above (or, with below, under) the threshold. */
export function onset(log: Log, t0: number, threshold: number, below = false): number {
  for (const [t, v] of log) if (t >= t0 && (below ? v <= threshold : v > threshold)) return t;
  return NaN;
}

/** First time at or after t0 where the value leaves [lo, hi]. */
export function leaves(log: Log, t0: number, lo: number, hi: number): number {
  for (const [t, v] of log) if (t >= t0 && (v < lo || v > hi)) return t;
  return NaN;
}

/** Start of the first run lasting ≥ holdMs (or ≥ holdSamples entries) where the test holds. */
export function sustained(log: Log, t0: number, test: (v: number) => boolean, holdMs: number): number {
  let start = NaN;
  for (const [t, v] of log) {
    if (t < t0) continue;
    if (test(v)) {
      if (Number.isNaN(start)) start = t;
      if (t - start >= holdMs) return start;
    } else start = NaN;
  }
  return NaN;
}

export async function openAvSession(
  env: Record<string, string> = {},
  voiceId = 'en-us-female',
): Promise<AvSession> {
  const server = await startServer({ MOUTHPIECE_LOG_LEVEL: 'warn', ...env });
  let browser: TestBrowser | undefined;
  try {
    browser = await launchBrowser();
    const { sessionId, token } = await server.createSession({
      visualConfig: { avatarId: AVATAR },
      voiceConfig: { id: voiceId },
    });
    const init = await server.initClient(sessionId, token);
    const page = await browser.newPage(server.url);
    await page.addScriptTag({ path: PROBE });
    const r = await page.evaluate((whepUrl) => window.mpTest.connect({ whepUrl }), init.whepUrl);
    if (r.status !== 201) throw new Error(`WHEP answered ${r.status}`);
    await page.evaluate(() =>
      window.mpTest.waitFor(async () => (await window.mpTest.stats()).framesDecoded > 5, 15000),
    );
    const manifest = vectorManifest(loadAvatarPack(join(BUILTIN_AVATARS_DIR, AVATAR)).manifest);
    const g = geometry(manifest);
    const box = { x: Math.round(g.cx - 50), y: Math.round(g.mouthY - 22), w: 100, h: 50 };
    const jbt = process.env['BENCH_JITTER_TARGET_MS'];
    await page.evaluate(([b, j]) => window.mpProbe.start(b, j), [
      box,
      jbt ? Number(jbt) : undefined,
    ] as const);
    const t0 = await page.evaluate(() => performance.now());
    await wait(2500);
    const idleFrames = (await page.evaluate((t) => window.mpProbe.since(t), t0)).frames.map(([, d]) => d);
    const idle = {
      min: Math.min(...idleFrames),
      max: Math.max(...idleFrames),
      mean: idleFrames.reduce((a, b) => a + b, 0) / idleFrames.length,
    };
    const base = `${server.url}/v1/avatar-session/${sessionId}`;
    // as every real page does: a keep-alive every 10 s, so a round slowed by a busy machine never
    // ends the session (`idle_timeout`, 30 s without a call) while the bench waits for its onset
    const keepAlive = setInterval(() => {
      page
        .evaluate((a) => window.mpProbe.post(`${a.base}/keep-alive`, a.token), { base, token })
        .catch(() => undefined);
    }, 10_000);
    const s: AvSession = {
      server,
      page,
      base,
      token,
      idle,
      openAbove: idle.max + 25,
      moveBelow: idle.min - 8,
      moveAbove: idle.max + 8,
      restAtMost: idle.max + 8,
      sayText: (text, turnId, isFinal = true) =>
        page.evaluate((a) => window.mpProbe.sayText(a.base, a.token, a.text, a.turnId, a.isFinal), {
          base,
          token,
          text,
          turnId,
          isFinal,
        }),
      sayAudio: (wav, turnId, duration) =>
        page.evaluate((a) => window.mpProbe.sayAudio(a.base, a.token, a.b64, a.turnId, a.duration), {
          base,
          token,
          b64: wav.toString('base64'),
          turnId,
          duration,
        }),
      interrupt: () =>
        page.evaluate((a) => window.mpProbe.post(`${a.base}/interrupt`, a.token), { base, token }),
      logs: (t) => page.evaluate((x) => window.mpProbe.since(x), t),
      async settle() {
        const t = await s.interrupt();
        for (let i = 0; i < 50; i++) {
          await wait(100);
          const { audio } = await s.logs(t);
          if (!Number.isNaN(sustained(audio, t, (v) => v < AUDIO_FLOOR / 2, 300))) return;
        }
      },
      async close() {
        clearInterval(keepAlive);
        await browser?.close();
        await server.stop();
      },
    };
    return s;
  } catch (err) {
    await browser?.close();
    await server.stop();
    throw err;
  }
}

/** A speech WAV from the engine's test fixtures, with its duration. */
export function speechWav(): { wav: Buffer; durationSec: number } {
  const wav = readFileSync(
    fileURLToPath(new URL('../../packages/engine/test-fixtures/audio/speech-22k.wav', import.meta.url)),
  );
  const bytesPerSec = wav.readUInt32LE(28);
  let o = 12;
  while (o < wav.length - 8 && wav.toString('ascii', o, o + 4) !== 'data') o += 8 + wav.readUInt32LE(o + 4);
  const durationSec = wav.readUInt32LE(o + 4) / bytesPerSec;
  return { wav, durationSec: +durationSec.toFixed(2) };
}
