/**
 * Photo avatars end to end: a portrait uploaded through the admin API streams to Chromium at once,
 * from every engine process and after a restart; received frames match the photo outside the mouth;
 * the mouth moves while speaking far more than when idle; the eyes blink; removing the avatar leaves
 * running sessions alone. The portrait is the astronaut test fixture (python3-skimage).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas, Image } from '@napi-rs/canvas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { portraitFixture } from '@mouthpiece/engine/testing';
import { launchBrowser, type TestBrowser } from './harness/browser.js';
import { requireE2eEnvironment, startServer, type TestServer } from './harness/server.js';
import { grabRgba } from './harness/video-pack-frames.js';

const ADMIN = 'e2e-admin-token-0123456789abcdefghijklmnop';
const SIZE = 512;
let server: TestServer;
let browser: TestBrowser;
let portrait: Buffer;
/** Folders the harness does not remove: the first server's data dir (kept for its successor), the packs. */
const leftDirs: string[] = [];
let packsDir: string;

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

beforeAll(async () => {
  requireE2eEnvironment();
  portrait = await portraitFixture({ scale: 2 });
  // a sprite pack drawn from a vector avatar, in an operator's pack folder
  packsDir = mkdtempSync(join(tmpdir(), 'mp-e2e-packs-'));
  leftDirs.push(packsDir);
  const { BUILTIN_AVATARS_DIR, readAvatarPacks, spritePackFromVector } =
    await import('@mouthpiece/engine/avatars');
  const amara = readAvatarPacks([BUILTIN_AVATARS_DIR]).packs.find((p) => p.manifest.id === 'amara')!.manifest;
  if (amara.render !== 'vector') throw new Error('amara is a vector avatar');
  await spritePackFromVector(amara, packsDir);
  server = await startServer({
    MOUTHPIECE_ADMIN_TOKEN: ADMIN,
    MOUTHPIECE_ENGINE_PROCESSES: '2',
    MOUTHPIECE_AVATARS_DIR: packsDir,
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  for (const d of leftDirs) rmSync(d, { recursive: true, force: true });
});

function upload(s: TestServer, id: string, image: Buffer) {
  const form = new FormData();
  form.set('id', id);
  form.set('name', 'Astronaut');
  form.set('image', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'portrait.png');
  return s.api('/admin/v1/avatars', { token: ADMIN, body: form });
}

async function streamingPage(
  s: TestServer,
  avatarId: string,
  background?: string,
): Promise<{ page: Page; sessionId: string; token: string }> {
  const { sessionId, token } = await s.createSession({
    visualConfig: { avatarId, ...(background ? { background } : {}) },
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

const grab = (page: Page): Promise<Uint8ClampedArray> => grabRgba(page, SIZE);

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

describe('photo avatars in a real browser', () => {
  let landmarks: Array<[number, number]>;
  let photo: Uint8ClampedArray;
  let k: number;
  const box = (ids: number[], pad: number): Box => {
    const xs = ids.map((i) => landmarks[i]![0] * k);
    const ys = ids.map((i) => landmarks[i]![1] * k);
    const x = Math.floor(Math.min(...xs) - pad);
    const y = Math.floor(Math.min(...ys) - pad);
    return { x, y, w: Math.ceil(Math.max(...xs) + pad) - x, h: Math.ceil(Math.max(...ys) + pad) - y };
  };

  it('an uploaded portrait is in the catalog at once, with a preview, and streams from every engine process', async () => {
    const r = await upload(server, 'astro', portrait);
    expect(r.status).toBe(201);
    expect(await r.json()).toMatchObject({ avatar: { id: 'astro', render: 'photo' } });
    const list = (await (await server.api('/v1/avatars', { method: 'GET', ks: server.secret })).json()) as {
      avatars: Array<{ id: string; render: string; previewUrl: string }>;
    };
    const entry = list.avatars.find((a) => a.id === 'astro')!;
    expect(entry).toMatchObject({ render: 'photo', previewUrl: '/v1/avatars/astro/preview.png' });
    const preview = await fetch(`${server.url}${entry.previewUrl}`);
    expect(preview.headers.get('content-type')).toBe('image/png');
    expect((await preview.arrayBuffer()).byteLength).toBeGreaterThan(1000);

    const pack = join(server.dataDir, 'avatars', 'astro');
    landmarks = (
      JSON.parse(readFileSync(join(pack, 'avatar.json'), 'utf8')) as { landmarks: Array<[number, number]> }
    ).landmarks;
    const img = new Image();
    img.src = readFileSync(join(pack, 'portrait.png'));
    k = SIZE / img.width;
    const c = createCanvas(SIZE, SIZE);
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0, SIZE, SIZE);
    photo = ctx.getImageData(0, 0, SIZE, SIZE).data;

    // two sessions: the pool spreads them over its two engine processes
    const a = await streamingPage(server, 'astro');
    const b = await streamingPage(server, 'astro');
    await a.page.close();
    await b.page.close();
  }, 90_000);

  it('received frames match the photo outside the mouth; the mouth moves while speaking, much more than idle; the eyes blink', async () => {
    const { page, sessionId, token } = await streamingPage(server, 'astro');
    await page.waitForTimeout(2500); // the encoder's quality ramps up over the first seconds
    const frame = await grab(page);
    const mouthBox = box([48, 50, 52, 54, 57, 8], 10);
    // the whole picture moves a few pixels with the head: compare at the best whole-pixel shift
    const diffAt = (dx: number, dy: number): number => {
      let sum = 0;
      let n = 0;
      for (let y = 24; y < SIZE - 24; y += 2)
        for (let x = 24; x < SIZE - 24; x += 2) {
          if (
            x >= mouthBox.x &&
            x < mouthBox.x + mouthBox.w &&
            y >= mouthBox.y &&
            y < mouthBox.y + mouthBox.h
          )
            continue;
          const o = (y * SIZE + x) * 4;
          const p = ((y - dy) * SIZE + x - dx) * 4;
          sum +=
            Math.abs(frame[o]! - photo[p]!) +
            Math.abs(frame[o + 1]! - photo[p + 1]!) +
            Math.abs(frame[o + 2]! - photo[p + 2]!);
          n += 3;
        }
      return sum / n;
    };
    let best = Infinity;
    for (let dy = -8; dy <= 8; dy++) for (let dx = -8; dx <= 8; dx++) best = Math.min(best, diffAt(dx, dy));
    // what "different" looks like: the same photo 24 px off
    const control = diffAt(24, 0);
    console.log(
      `photo e2e: mean difference outside the mouth ${best.toFixed(2)} (photo 24 px off: ${control.toFixed(2)})`,
    );
    expect(best).toBeLessThan(10);
    expect(best).toBeLessThan(control / 2);

    const mouth = box([48, 54, 51, 57], 6);
    const idle = await motion(page, 1500, mouth);
    const said = await server.api(`/v1/avatar-session/${sessionId}/say-text`, {
      token,
      json: { text: 'Hello there, I am an astronaut and I am talking to you from a photo.', turnId: 't1' },
    });
    expect(said.status).toBe(200);
    expect(
      await page.evaluate(() =>
        window.mpTest.waitFor(() => window.mpTest.events.some((e) => e.type === 'speakingStart'), 10000),
      ),
    ).toBe(true);
    const speaking = await motion(page, 2500, mouth);
    console.log(`photo e2e: mouth motion idle ${idle.mean.toFixed(2)}, speaking ${speaking.mean.toFixed(2)}`);
    expect(speaking.mean).toBeGreaterThan(3 * Math.max(idle.mean, 0.5));

    // blinks: every 2–6 s the eye region changes far more than between other frames
    await page.evaluate(() =>
      window.mpTest.waitFor(() => window.mpTest.events.some((e) => e.type === 'speakingEnd'), 15000),
    );
    const eyes = await motion(page, 7000, box([36, 39, 42, 45, 37, 41], 4));
    console.log(`photo e2e: eye region change mean ${eyes.mean.toFixed(2)}, peak ${eyes.peak.toFixed(2)}`);
    expect(eyes.peak).toBeGreaterThan(4 * Math.max(eyes.mean, 0.5));
    expect(eyes.peak).toBeGreaterThan(6);
    await page.close();
  }, 90_000);

  it('a keyed background is exactly the colour asked, for vector and sprite avatars; photo avatars refuse one', async () => {
    const list = (await (await server.api('/v1/avatars', { method: 'GET', ks: server.secret })).json()) as {
      avatars: Array<{ id: string; render: string; previewUrl: string }>;
    };
    const sprites = list.avatars.find((a) => a.id === 'amara-sprites')!;
    expect(sprites.render).toBe('sprites');
    const preview = await fetch(`${server.url}${sprites.previewUrl}`);
    expect(preview.status).toBe(200);
    expect(preview.headers.get('content-type')).toBe('image/png');
    for (const avatarId of ['amara', 'amara-sprites']) {
      const { page } = await streamingPage(server, avatarId, '#00ff00');
      await page.waitForTimeout(2500); // the encoder's quality ramps up over the first seconds
      const f = await grab(page);
      let worst = 0;
      let sum = 0;
      let n = 0;
      for (const [x0, y0] of [
        [4, 4],
        [SIZE - 36, 4],
        [4, 220],
        [SIZE - 36, 220],
      ] as const)
        for (let y = y0; y < y0 + 32; y++)
          for (let x = x0; x < x0 + 32; x++) {
            const o = (y * SIZE + x) * 4;
            const dev = [Math.abs(f[o]! - 0), Math.abs(f[o + 1]! - 255), Math.abs(f[o + 2]! - 0)];
            worst = Math.max(worst, ...dev);
            sum += dev[0]! + dev[1]! + dev[2]!;
            n++;
          }
      console.log(
        `photo e2e: ${avatarId} keyed background over ${n} pixels: mean channel deviation ${(sum / n / 3).toFixed(2)}, largest ${worst}`,
      );
      // the engine's frame is exact (sprite-renderer.test.ts); the decoded video is within the
      // rounding of VP8's 4:2:0 YUV and its quantiser (#00ff00 arrives as 0,254,1)
      expect(sum / n / 3).toBeLessThanOrEqual(1.5);
      expect(worst).toBeLessThanOrEqual(6);
      await page.close();
    }
    const photo = await server.api('/v1/avatar-session', {
      ks: server.secret,
      json: { visualConfig: { avatarId: 'astro', background: '#00ff00' } },
    });
    expect(photo.status).toBe(400);
    expect(await photo.text()).toMatch(/not available for photo avatars/);
  }, 60_000);

  it('removing the avatar leaves a running session streaming; new sessions are refused; it stays across a restart until removed', async () => {
    const { page } = await streamingPage(server, 'astro');
    const del = await server.api('/admin/v1/avatars/astro', { method: 'DELETE', token: ADMIN });
    expect(del.status).toBe(200);
    const before = (await page.evaluate(() => window.mpTest.stats())).framesDecoded;
    await page.waitForTimeout(1500);
    expect((await page.evaluate(() => window.mpTest.stats())).framesDecoded).toBeGreaterThan(before + 20);
    const refused = await server.api('/v1/avatar-session', {
      ks: server.secret,
      json: { visualConfig: { avatarId: 'astro' }, voiceConfig: { id: 'en-us-female' } },
    });
    expect(refused.status).toBe(400);
    await page.close();

    // uploaded again, then the server restarts on the same data dir: still there, still streams
    expect((await upload(server, 'astro', portrait)).status).toBe(201);
    const dataDir = server.dataDir;
    const t0 = Date.now();
    const exited = new Promise((r) => server.proc.once('exit', r));
    server.proc.kill('SIGTERM');
    const kill = setTimeout(() => server.proc.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(kill);
    console.log(`photo e2e: first server stopped in ${Date.now() - t0} ms`);
    server = await startServer({ MOUTHPIECE_ADMIN_TOKEN: ADMIN, MOUTHPIECE_DATA_DIR: dataDir });
    const list = (await (await server.api('/v1/avatars', { method: 'GET', ks: server.secret })).json()) as {
      avatars: Array<{ id: string }>;
    };
    expect(list.avatars.map((a) => a.id)).toContain('astro');
    const again = await streamingPage(server, 'astro');
    await again.page.close();
    leftDirs.push(dataDir);
  }, 120_000);
});
