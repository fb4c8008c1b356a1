/**
 * Video avatars end to end (issue 19): a clip of a person talking (the test footage of
 * testing/talking-clip.ts, 22 s) uploaded through the admin API becomes a video avatar with a
 * preview; it streams to Chromium, where the received idle frames are the clip's own footage (the
 * pack's base frames) outside the lower face and show the clip's own motion, and the mouth moves
 * while speaking far more than when idle; a keyed background is refused; DELETE removes it.
 * Frames are compared in luma (BT.601 limited range, what the engine stores) at 512×512.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { makeTalkingClip, type TalkingClip } from '@mouthpiece/engine/testing';
import { launchBrowser, type TestBrowser } from './harness/browser.js';
import { requireE2eEnvironment, startServer, type TestServer } from './harness/server.js';
import { grabLuma as grabFrameLuma } from './harness/video-pack-frames.js';

const ADMIN = 'e2e-admin-token-0123456789abcdefghijklmnop';
const SIZE = 512;
const ID = 'talker';
let server: TestServer;
let browser: TestBrowser;
let clip: TalkingClip;

/** What the test reads of the pack's video.json (packages/engine/src/video/pack.ts VideoIndex). */
interface PackIndex {
  size: number;
  base: { frames: number; toFrame: Array<[number, number, number, number]> };
  canonical: { landmarks: Array<[number, number]> };
  library: { box: { x: number; y: number; width: number; height: number } };
}

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

beforeAll(async () => {
  requireE2eEnvironment();
  [clip, server, browser] = await Promise.all([
    makeTalkingClip({ durationS: 22 }),
    startServer({ MOUTHPIECE_ADMIN_TOKEN: ADMIN }),
    launchBrowser(),
  ]);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

function upload(s: TestServer, id: string, file: string) {
  const form = new FormData();
  form.set('id', id);
  form.set('name', 'Talker');
  form.set('video', new Blob([new Uint8Array(readFileSync(file))], { type: 'video/mp4' }), 'talker.mp4');
  return s.api('/admin/v1/avatars', { token: ADMIN, body: form });
}

async function catalog(s: TestServer) {
  const r = await s.api('/v1/avatars', { method: 'GET', ks: s.secret });
  return ((await r.json()) as { avatars: Array<{ id: string; render: string; previewUrl: string }> }).avatars;
}

async function streamingPage(
  s: TestServer,
  avatarId: string,
): Promise<{ page: Page; sessionId: string; token: string }> {
  const { sessionId, token } = await s.createSession({
    visualConfig: { avatarId },
    voiceConfig: { id: 'en-us-female' },
  });
  const init = await s.initClient(sessionId, token);
  const page = await browser.newPage(s.url);
  expect((await page.evaluate((whepUrl) => window.mpTest.connect({ whepUrl }), init.whepUrl)).status).toBe(
    201,
  );
  expect(
    await page.evaluate(() =>
      window.mpTest.waitFor(async () => (await window.mpTest.stats()).framesDecoded > 10, 15000),
    ),
  ).toBe(true);
  return { page, sessionId, token };
}

const grabLuma = (page: Page): Promise<Float32Array> => grabFrameLuma(page, SIZE);

/** Mean frame-to-frame change in a box over a window, and its largest single change. */
function motion(page: Page, ms: number, box: Box): Promise<{ mean: number; peak: number }> {
  return page.evaluate(
    async ({ ms, box }) => {
      const v = (window as unknown as { mpTest: { video: HTMLVideoElement } }).mpTest.video;
      const c = document.createElement('canvas');
      c.width = v.videoWidth;
      c.height = v.videoHeight;
      const ctx = c.getContext('2d', { willReadFrequently: true })!;
      const k = v.videoWidth / 512;
      let prev: Uint8ClampedArray | undefined;
      let total = 0;
      let peak = 0;
      let n = 0;
      const end = performance.now() + ms;
      while (performance.now() < end) {
        ctx.drawImage(v, 0, 0);
        const d = ctx.getImageData(box.x * k, box.y * k, box.w * k, box.h * k).data;
        if (prev) {
          let diff = 0;
          for (let i = 0; i < d.length; i += 4)
            diff += Math.abs(d[i]! - prev[i]!) + Math.abs(d[i + 1]! - prev[i + 1]!);
          const m = diff / (d.length / 4);
          total += m;
          peak = Math.max(peak, m);
          n++;
        }
        prev = d;
        await new Promise((r) => setTimeout(r, 40));
      }
      return { mean: n ? total / n : 0, peak };
    },
    { ms, box },
  );
}

describe('video avatars in a real browser', () => {
  let index: PackIndex;
  /** The pack's base frames (the base frames the walk plays), I420 back to back at index.size. */
  let base: Buffer;
  const frameBytes = (): number => index.size * index.size * 1.5;
  /** Canonical points through base frame i's placement, as a padded box. */
  const boxOf = (i: number, pts: Array<[number, number]>, pad: number): Box => {
    const [a, b, tx, ty] = index.base.toFrame[i]!;
    const xs = pts.map(([x, y]) => a * x - b * y + tx);
    const ys = pts.map(([x, y]) => b * x + a * y + ty);
    const x = Math.floor(Math.min(...xs) - pad);
    const y = Math.floor(Math.min(...ys) - pad);
    return { x, y, w: Math.ceil(Math.max(...xs) + pad) - x, h: Math.ceil(Math.max(...ys) + pad) - y };
  };
  /** The lower-face box the renderer may touch in base frame i, padded. */
  const lowerFace = (i: number): Box => {
    const { x, y, width, height } = index.library.box;
    return boxOf(
      i,
      [
        [x, y],
        [x + width, y],
        [x, y + height],
        [x + width, y + height],
      ],
      6,
    );
  };
  /** Mean luma difference between a received frame and base frame i shifted by dx, outside a box. */
  const madOutside = (frame: Float32Array, i: number, skip: Box, dx = 0): number => {
    const y0 = i * frameBytes();
    let sum = 0;
    let n = 0;
    for (let y = 16; y < SIZE - 16; y += 2)
      for (let x = 32; x < SIZE - 32; x += 2) {
        if (x >= skip.x && x < skip.x + skip.w && y >= skip.y && y < skip.y + skip.h) continue;
        sum += Math.abs(frame[y * SIZE + x]! - base[y0 + y * index.size + x - dx]!);
        n++;
      }
    return sum / n;
  };
  /** The base frame nearest a received one outside the lower face, and its difference. */
  const nearestBase = (frame: Float32Array): { i: number; mad: number } => {
    let best = { i: -1, mad: Infinity };
    for (let i = 0; i < index.base.frames; i++) {
      const mad = madOutside(frame, i, lowerFace(i));
      if (mad < best.mad) best = { i, mad };
    }
    return best;
  };

  it('an uploaded clip becomes a video avatar: 201, in the catalog with a preview, its pack under the data dir', async () => {
    const t0 = Date.now();
    const r = await upload(server, ID, clip.file);
    const body = await r.text();
    expect(r.status, body).toBe(201);
    console.log(
      `video e2e: a ${clip.durationS} s clip imported in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    expect(JSON.parse(body)).toMatchObject({
      success: true,
      avatar: { id: ID, render: 'video', previewUrl: `/v1/avatars/${ID}/preview.png` },
    });
    const entry = (await catalog(server)).find((a) => a.id === ID)!;
    expect(entry).toMatchObject({ render: 'video', previewUrl: `/v1/avatars/${ID}/preview.png` });
    const preview = await fetch(`${server.url}${entry.previewUrl}`);
    expect(preview.status).toBe(200);
    expect(preview.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await preview.arrayBuffer());
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.byteLength).toBeGreaterThan(1000);

    const dir = join(server.dataDir, 'avatars');
    expect(readdirSync(dir)).toEqual([ID]); // no upload left behind
    index = JSON.parse(readFileSync(join(dir, ID, 'video.json'), 'utf8')) as PackIndex;
    base = readFileSync(join(dir, ID, 'base.i420'));
    expect(index.size).toBe(SIZE);
    expect(base.length).toBe(index.base.frames * frameBytes());
  }, 240_000);

  it("streams the clip's own footage: idle frames match it outside the mouth and move as it did; the mouth moves while speaking far more than idle", async () => {
    const { page, sessionId, token } = await streamingPage(server, ID);
    await page.waitForTimeout(2500); // the encoder's quality ramps up over the first seconds

    // idle: six frames over ≈ 2 s, each the nearest of the clip's base frames outside the lower face
    const grabs: Array<{ frame: Float32Array; i: number; mad: number }> = [];
    for (let k = 0; k < 6; k++) {
      const frame = await grabLuma(page);
      grabs.push({ frame, ...nearestBase(frame) });
      await page.waitForTimeout(300);
    }
    const worst = Math.max(...grabs.map((g) => g.mad));
    // what "different" looks like: the matched base frame 24 px off
    const control = Math.min(...grabs.map((g) => madOutside(g.frame, g.i, lowerFace(g.i), 24)));
    // the clip's own motion: received frames apart in time differ (a frozen still would not)
    let change = 0;
    for (let j = 1; j < grabs.length; j++)
      for (let k = 0; k < j; k++) {
        let sum = 0;
        let n = 0;
        for (let p = 0; p < SIZE * SIZE; p += 7) {
          sum += Math.abs(grabs[j]!.frame[p]! - grabs[k]!.frame[p]!);
          n++;
        }
        change = Math.max(change, sum / n);
      }
    const shown = new Set(grabs.map((g) => g.i));
    // at rest nothing is composited: the lower face is the footage too
    const none: Box = { x: 0, y: 0, w: 0, h: 0 };
    const whole = Math.max(...grabs.map((g) => madOutside(g.frame, g.i, none)));
    console.log(
      `video e2e: idle frames vs the nearest base frame outside the lower face: mean luma difference ≤ ${worst.toFixed(2)} (whole frame ${whole.toFixed(2)}; 24 px off: ${control.toFixed(2)}); base frames shown ${grabs.map((g) => g.i).join(',')} of ${index.base.frames}; largest difference between two of them ${change.toFixed(2)}`,
    );
    expect(worst).toBeLessThan(6);
    expect(whole).toBeLessThan(6);
    expect(worst).toBeLessThan(control / 3);
    expect(shown.size).toBeGreaterThanOrEqual(3);
    expect(change).toBeGreaterThan(1.5);

    // the mouth: idle against speaking
    const mouth = boxOf(
      0,
      [48, 51, 54, 57].map((i) => index.canonical.landmarks[i]!),
      8,
    );
    const idle = await motion(page, 1500, mouth);
    const said = await server.api(`/v1/avatar-session/${sessionId}/say-text`, {
      token,
      json: {
        text: 'Hello there, I am talking to you from a video of myself, one word after another.',
        turnId: 't1',
      },
    });
    expect(said.status).toBe(200);
    expect(
      await page.evaluate(() =>
        window.mpTest.waitFor(() => window.mpTest.events.some((e) => e.type === 'speakingStart'), 10000),
      ),
    ).toBe(true);
    const speaking = await motion(page, 2500, mouth);
    // while speaking only the lower face is composited: the rest is still the footage
    const talking = nearestBase(await grabLuma(page));
    const stillSpeaking = await page.evaluate(() =>
      window.mpTest.events.every((e) => e.type !== 'speakingEnd'),
    );
    console.log(
      `video e2e: mouth motion idle ${idle.mean.toFixed(2)} (peak ${idle.peak.toFixed(2)}), speaking ${speaking.mean.toFixed(2)} (peak ${speaking.peak.toFixed(2)}); a speaking frame vs base frame ${talking.i} outside the lower face ${talking.mad.toFixed(2)}`,
    );
    expect(speaking.mean).toBeGreaterThan(3 * Math.max(idle.mean, 0.5));
    expect(stillSpeaking).toBe(true);
    expect(talking.mad).toBeLessThan(6);
    await page.close();
  }, 90_000);

  it('refuses a keyed background on a video avatar at create with a 400 saying why', async () => {
    const r = await server.api('/v1/avatar-session', {
      ks: server.secret,
      json: { visualConfig: { avatarId: ID, background: '#00ff00' }, voiceConfig: { id: 'en-us-female' } },
    });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({
      success: false,
      code: 'INVALID_REQUEST',
      error: expect.stringMatching(/"visualConfig\.background": not available for video avatars/),
    });
  });

  it('DELETE removes it: gone from the catalog and the data dir, its preview 404, new sessions refused', async () => {
    const del = await server.api(`/admin/v1/avatars/${ID}`, { method: 'DELETE', token: ADMIN });
    expect(del.status).toBe(200);
    expect((await catalog(server)).map((a) => a.id)).not.toContain(ID);
    expect(existsSync(join(server.dataDir, 'avatars', ID))).toBe(false);
    expect(readdirSync(join(server.dataDir, 'avatars'))).toEqual([]);
    expect((await fetch(`${server.url}/v1/avatars/${ID}/preview.png`)).status).toBe(404);
    const refused = await server.api('/v1/avatar-session', {
      ks: server.secret,
      json: { visualConfig: { avatarId: ID }, voiceConfig: { id: 'en-us-female' } },
    });
    expect(refused.status).toBe(400);
  });
});
