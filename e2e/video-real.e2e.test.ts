/**
 * Issue 29 end to end on real footage: the talking-head clip at ../shared/fixtures/real-clips/
 * (from the project's root; 20 s of a real man talking, its README there says how it may be used)
 * uploaded through the admin API as a user would becomes a video avatar; it streams to Chromium,
 * its mouth moves while it speaks (say-text), and its idle moves without repeating itself: every
 * frame Chromium presents over 9 s of idle is thumbnailed (the face, 32×32 luma), and no 2 s run
 * of them comes back later (a short loop played back and forth would).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type TestBrowser } from './harness/browser.js';
import { requireE2eEnvironment, startServer, type TestServer } from './harness/server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLIP = resolve(ROOT, '../shared/fixtures/real-clips/latentsync-demo2.mp4');
const ADMIN = 'e2e-admin-token-0123456789abcdefghijklmnop';
const ID = 'real-talker';
/** Thumbnail side, frames a second, and the idle span watched. */
const THUMB = 32;
const FPS = 25;
const IDLE_MS = 9000;
let server: TestServer;
let browser: TestBrowser;

/** What the test reads of the pack's video.json (packages/engine/src/video/pack.ts VideoIndex). */
interface PackIndex {
  size: number;
  base: { frames: number; toFrame: Array<[number, number, number, number]> };
  canonical: { landmarks: Array<[number, number]> };
}
interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

beforeAll(async () => {
  if (!existsSync(CLIP))
    throw new Error(
      `the real talking-head clip is missing: put latentsync-demo2.mp4 at ${CLIP} (../shared/fixtures/real-clips/ from the project's root)`,
    );
  requireE2eEnvironment();
  [server, browser] = await Promise.all([startServer({ MOUTHPIECE_ADMIN_TOKEN: ADMIN }), launchBrowser()]);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Canonical landmarks `ks` through base frame 0's placement, as a box padded by `pad` px. */
function boxOf(index: PackIndex, ks: number[], pad: number): Box {
  const [a, b, tx, ty] = index.base.toFrame[0]!;
  const pts = ks.map((k) => index.canonical.landmarks[k]!);
  const xs = pts.map(([x, y]) => a * x - b * y + tx);
  const ys = pts.map(([x, y]) => b * x + a * y + ty);
  const x = Math.max(0, Math.floor(Math.min(...xs) - pad));
  const y = Math.max(0, Math.floor(Math.min(...ys) - pad));
  const right = Math.min(index.size, Math.ceil(Math.max(...xs) + pad));
  const bottom = Math.min(index.size, Math.ceil(Math.max(...ys) + pad));
  return { x, y, w: right - x, h: bottom - y };
}

/**
 * Every frame Chromium presents for `ms`: its number on the stream's clock (the RTP timestamp at
 * 90 kHz, 25 fps) and a THUMB×THUMB luma thumbnail of `box` (in 512 px frame coordinates).
 */
function thumbnails(page: Page, ms: number, box: Box): Promise<Array<{ n: number; y: number[] }>> {
  return page.evaluate(
    ({ ms, box, side, fps }) =>
      new Promise<Array<{ n: number; y: number[] }>>((done) => {
        const v = (window as unknown as { mpTest: { video: HTMLVideoElement } }).mpTest.video;
        const c = document.createElement('canvas');
        c.width = side;
        c.height = side;
        const ctx = c.getContext('2d', { willReadFrequently: true })!;
        const out: Array<{ n: number; y: number[] }> = [];
        let first: number | undefined;
        const end = performance.now() + ms;
        const onFrame = (_: number, meta: VideoFrameCallbackMetadata): void => {
          const clock = meta.rtpTimestamp !== undefined ? meta.rtpTimestamp / 90_000 : meta.mediaTime;
          first ??= clock;
          const k = v.videoWidth / 512;
          ctx.drawImage(v, box.x * k, box.y * k, box.w * k, box.h * k, 0, 0, side, side);
          const d = ctx.getImageData(0, 0, side, side).data;
          const y: number[] = [];
          for (let i = 0; i < d.length; i += 4) y.push(0.299 * d[i]! + 0.587 * d[i + 1]! + 0.114 * d[i + 2]!);
          out.push({ n: Math.round((clock - first) * fps), y });
          if (performance.now() < end) v.requestVideoFrameCallback(onFrame);
          else done(out);
        };
        v.requestVideoFrameCallback(onFrame);
      }),
    { ms, box, side: THUMB, fps: FPS },
  );
}

const distance = (a: number[], b: number[]): number =>
  a.reduce((s, v, i) => s + Math.abs(v - b[i]!), 0) / a.length;

/**
 * Over frames numbered on the stream's clock: the closest any 2 s run (50 frames) comes to a run
 * starting at least 2 s later (mean thumbnail distance, frames both runs have), beside the median
 * over every such pair of runs; and the largest change between two frames half a second apart.
 */
function idleFigures(frames: Array<{ n: number; y: number[] }>): {
  closest: number;
  median: number;
  moved: number;
} {
  const run = 2 * FPS;
  const at = new Map(frames.map((f) => [f.n, f.y]));
  const last = Math.max(...frames.map((f) => f.n));
  const pairs: number[] = [];
  for (let i = 0; i + 2 * run <= last; i += 5)
    for (let lag = run; i + lag + run <= last + 1; lag++) {
      let sum = 0;
      let count = 0;
      for (let k = 0; k < run; k++) {
        const a = at.get(i + k);
        const b = at.get(i + lag + k);
        if (a && b) {
          sum += distance(a, b);
          count++;
        }
      }
      if (count >= run * 0.8) pairs.push(sum / count);
    }
  pairs.sort((a, b) => a - b);
  let moved = 0;
  for (const [n, y] of at) {
    const later = at.get(n + FPS / 2);
    if (later) moved = Math.max(moved, distance(y, later));
  }
  return { closest: pairs[0] ?? NaN, median: pairs[pairs.length >> 1] ?? NaN, moved };
}

/** Mean frame-to-frame change of the thumbnails (luma 0–255). */
function meanChange(frames: Array<{ n: number; y: number[] }>): number {
  let sum = 0;
  for (let k = 1; k < frames.length; k++) sum += distance(frames[k]!.y, frames[k - 1]!.y);
  return sum / Math.max(1, frames.length - 1);
}

async function streamingPage(s: TestServer): Promise<{ page: Page; sessionId: string; token: string }> {
  const { sessionId, token } = await s.createSession({
    visualConfig: { avatarId: ID },
    voiceConfig: { id: 'en-us-female' },
  });
  const init = await s.initClient(sessionId, token);
  const page = await browser.newPage(s.url);
  expect((await page.evaluate((whepUrl) => window.mpTest.connect({ whepUrl }), init.whepUrl)).status).toBe(
    201,
  );
  return { page, sessionId, token };
}

describe('a video avatar from real footage in a real browser', () => {
  let index: PackIndex;

  it('the real clip uploaded through the admin API becomes a video avatar', async () => {
    const form = new FormData();
    form.set('id', ID);
    form.set('name', 'Real talker');
    form.set('video', new Blob([new Uint8Array(readFileSync(CLIP))], { type: 'video/mp4' }), 'real.mp4');
    const t0 = Date.now();
    const r = await server.api('/admin/v1/avatars', { token: ADMIN, body: form });
    const body = await r.text();
    expect(r.status, body).toBe(201);
    console.log(`video-real e2e: the real clip imported in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    expect(JSON.parse(body)).toMatchObject({ success: true, avatar: { id: ID, render: 'video' } });
    index = JSON.parse(readFileSync(join(server.dataDir, 'avatars', ID, 'video.json'), 'utf8')) as PackIndex;
    expect(index.size).toBe(512);
  }, 240_000);

  it('streams; the idle moves and no 2 s of it repeats; the mouth moves while speaking', async () => {
    const { page, sessionId, token } = await streamingPage(server);
    expect(
      await page.evaluate(() =>
        window.mpTest.waitFor(async () => (await window.mpTest.stats()).framesDecoded > 10, 15000),
      ),
    ).toBe(true);
    await page.waitForTimeout(2500); // the encoder's quality ramps up over the first seconds

    const face = boxOf(index, [...Array(27).keys()], 24);
    const idle = await thumbnails(page, IDLE_MS, face);
    const figures = idleFigures(idle);
    const mouth = boxOf(index, [48, 51, 54, 57], 8);
    const idleMouth = meanChange(await thumbnails(page, 1500, mouth));
    const said = await server.api(`/v1/avatar-session/${sessionId}/say-text`, {
      token,
      json: {
        text: 'Hello there, I am talking to you from a video of myself, one word after another, for a while.',
        turnId: 't1',
      },
    });
    expect(said.status).toBe(200);
    expect(
      await page.evaluate(() =>
        window.mpTest.waitFor(() => window.mpTest.events.some((e) => e.type === 'speakingStart'), 10000),
      ),
    ).toBe(true);
    const speakingMouth = meanChange(await thumbnails(page, 2500, mouth));
    const stillSpeaking = await page.evaluate(() =>
      window.mpTest.events.every((e) => e.type !== 'speakingEnd'),
    );
    console.log(
      `video-real e2e: ${idle.length} idle frames presented in ${IDLE_MS / 1000} s (${index.base.frames} base frames in the pack); largest change 0.5 s apart ${figures.moved.toFixed(2)}; closest later repeat of a 2 s run ${figures.closest.toFixed(2)} (median over run pairs ${figures.median.toFixed(2)}); mouth change a frame idle ${idleMouth.toFixed(2)}, speaking ${speakingMouth.toFixed(2)}`,
    );
    expect(idle.length).toBeGreaterThan(0.8 * FPS * (IDLE_MS / 1000)); // it streams at ~25 fps
    expect(figures.moved).toBeGreaterThan(1.5); // the idle moves
    // no 2 s run comes back: the closest later run is not far nearer than run pairs usually are
    expect(figures.closest).toBeGreaterThan(0.35 * figures.median);
    expect(stillSpeaking).toBe(true);
    expect(speakingMouth).toBeGreaterThan(2 * Math.max(idleMouth, 0.25));
    await page.close();
  }, 90_000);
});
