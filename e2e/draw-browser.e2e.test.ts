/**
 * One drawing code for engine and browser (docs/design.md §12): the browser bundle of
 * @mouthpiece/draw (dist/mouthpiece-draw.js) draws the same FaceState into a page's canvas in
 * Chromium that the engine's renderer draws with Skia, within anti-aliasing: the mean absolute
 * difference stays under 2 grey levels over the frame and in the mouth, and the browser's mouth
 * region moves with the opening while the eyes stay put. Sprite avatars likewise, from the pack's
 * pictures decoded by the browser.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { MOUTH_SHAPES, type FacePose, type MouthParams } from '@mouthpiece/draw';
import {
  BUILTIN_AVATARS_DIR,
  createAvatarRenderer,
  loadAvatarPack,
  spritePackFromVector,
} from '@mouthpiece/engine/avatars';
import { launchBrowser, type TestBrowser } from './harness/browser.js';
import { requireE2eEnvironment } from './harness/server.js';

const BUNDLE = fileURLToPath(new URL('../packages/draw/dist/mouthpiece-draw.js', import.meta.url));
const REST = { blink: 0, headX: 0, headY: 0, tilt: 0, breath: 0, brow: 0, gazeX: 0, gazeY: 0 };
const W = 512;
const H = 512;
/** The mouth and the eyes at 512×512 (packages/engine/src/render/renderer.test.ts). */
const MOUTH = { x: 206, y: 255, w: 100, h: 70 };
const EYES = { x: 150, y: 150, w: 212, h: 60 };

type Box = typeof MOUTH;
let browser: TestBrowser;
let page: Page;
let packs: string;

beforeAll(async () => {
  requireE2eEnvironment();
  packs = mkdtempSync(join(tmpdir(), 'mp-e2e-draw-'));
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await page.setContent(`<html><body><canvas id="c" width="${W}" height="${H}"></canvas></body></html>`);
  await page.addScriptTag({ path: BUNDLE });
});
afterAll(async () => {
  await browser?.close();
  if (packs) rmSync(packs, { recursive: true, force: true });
});

/** Mean absolute difference per colour channel inside a box (the whole frame by default). */
function mad(
  a: Uint8Array | Uint8ClampedArray,
  b: Uint8Array | Uint8ClampedArray,
  r: Box = { x: 0, y: 0, w: W, h: H },
  width = W,
) {
  let sum = 0;
  for (let y = r.y; y < r.y + r.h; y++)
    for (let x = r.x; x < r.x + r.w; x++) {
      const i = (y * width + x) * 4;
      sum += Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!);
    }
  return sum / (3 * r.w * r.h);
}

/** Reads the page canvas back as RGBA. */
async function canvasPixels(): Promise<Uint8Array> {
  const b64 = await page.evaluate(() => {
    const c = document.getElementById('c') as HTMLCanvasElement;
    const px = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let s = '';
    for (let i = 0; i < px.length; i += 0x8000) s += String.fromCharCode(...px.subarray(i, i + 0x8000));
    return btoa(s);
  });
  return new Uint8Array(Buffer.from(b64, 'base64'));
}

const pose = (mouth: MouthParams, blink = 0): FacePose => ({
  mouth: { ...mouth },
  motion: { ...REST, blink },
});

describe('the drawing code in Chromium', () => {
  for (const id of ['amara', 'jonas', 'mei']) {
    it(`${id}: the browser draws the engine's frame, and its mouth moves with the opening`, async () => {
      const manifest = loadAvatarPack(join(BUILTIN_AVATARS_DIR, id)).manifest;
      if (manifest.render !== 'vector') throw new Error(`${id} is a vector avatar`);
      const engine = createAvatarRenderer(manifest, { width: W, height: H });
      const moving = { ...REST, tilt: 0.031, headX: 3.4, headY: -1.2, breath: 0.6, brow: 0.5, gazeX: 0.4 };
      const poses = [
        pose(MOUTH_SHAPES.A),
        pose(MOUTH_SHAPES.D),
        pose(MOUTH_SHAPES.A, 1),
        { mouth: { ...MOUTH_SHAPES.E }, motion: moving }, // head, breath, brows and gaze move
      ];
      const frames: Array<{ engine: Uint8ClampedArray; browser: Uint8Array }> = [];
      await page.evaluate((look) => {
        const w = window as any;
        w.avatar?.close();
        w.avatar = w.MouthpieceDraw.createCanvasVectorAvatar(look, document.getElementById('c'));
      }, manifest);
      for (const p of poses) {
        await page.evaluate((p) => (window as any).avatar.draw(p), p);
        frames.push({ engine: engine.render(p).slice(), browser: await canvasPixels() });
        await new Promise((r) => setImmediate(r));
      }
      engine.close();
      const [closed, open, blink] = frames as [(typeof frames)[0], (typeof frames)[0], (typeof frames)[0]];
      expect(mad(closed.browser, frames[3]!.browser), 'the head moves').toBeGreaterThan(2);
      for (const f of frames) {
        expect(mad(f.browser, f.engine), 'whole frame').toBeLessThan(2);
        expect(mad(f.browser, f.engine, MOUTH), 'mouth').toBeLessThan(2);
      }
      expect(mad(closed.browser, open.browser, MOUTH), 'the mouth opens').toBeGreaterThan(10);
      expect(mad(closed.browser, open.browser, EYES), 'the eyes stay').toBeLessThan(1);
      expect(mad(closed.browser, blink.browser, EYES), 'the eyes blink').toBeGreaterThan(5);
      console.log(
        `${id}: browser vs engine MAD ${frames.map((f) => mad(f.browser, f.engine).toFixed(3)).join(' / ')}` +
          ` (mouth ${frames.map((f) => mad(f.browser, f.engine, MOUTH).toFixed(3)).join(' / ')});` +
          ` mouth closed→open ${mad(closed.browser, open.browser, MOUTH).toFixed(1)}`,
      );
    });
  }

  it('at 2× (1024×1024) and at 1280×720 the browser draws the engine frame of that size', async () => {
    const manifest = loadAvatarPack(join(BUILTIN_AVATARS_DIR, 'amara')).manifest;
    if (manifest.render !== 'vector') throw new Error('amara is a vector avatar');
    const p = { mouth: { ...MOUTH_SHAPES.C }, motion: { ...REST, tilt: -0.02, headX: 2, blink: 0.3 } };
    for (const [w, h] of [
      [1024, 1024],
      [1280, 720],
    ] as const) {
      await page.evaluate(
        ({ look, w, h, p }) => {
          const c = document.getElementById('c') as HTMLCanvasElement;
          c.width = w;
          c.height = h;
          const win = window as any;
          win.avatar?.close();
          win.avatar = win.MouthpieceDraw.createCanvasVectorAvatar(look, c);
          win.avatar.draw(p);
        },
        { look: manifest, w, h, p },
      );
      const engine = createAvatarRenderer(manifest, { width: w, height: h });
      const e = engine.render(p).slice();
      engine.close();
      const b = await canvasPixels();
      expect(b.length).toBe(w * h * 4);
      const d = mad(b, e, { x: 0, y: 0, w, h }, w);
      expect(d, `${w}×${h}`).toBeLessThan(2);
      console.log(`amara ${w}×${h}: browser vs engine MAD ${d.toFixed(3)}`);
    }
    await page.evaluate((size) => {
      const c = document.getElementById('c') as HTMLCanvasElement;
      c.width = size;
      c.height = size;
    }, W);
  });

  it('a sprite avatar: the browser composes the engine frame from the same pictures', async () => {
    const amara = loadAvatarPack(join(BUILTIN_AVATARS_DIR, 'amara')).manifest;
    if (amara.render !== 'vector') throw new Error('amara is a vector avatar');
    await spritePackFromVector(amara, packs);
    const pack = loadAvatarPack(join(packs, 'amara-sprites'));
    const m = pack.manifest;
    if (m.render !== 'sprites') throw new Error('not a sprite pack');
    const files = { base: m.base, mouths: m.mouth.shapes, blinks: m.blink?.images ?? [] };
    const url = (f: string) => `data:image/png;base64,${readFileSync(join(pack.dir, f)).toString('base64')}`;
    const urls = {
      base: url(files.base),
      mouths: Object.fromEntries(Object.entries(files.mouths).map(([v, f]) => [v, url(f)])),
      blinks: files.blinks.map(url),
    };
    await page.evaluate(
      async ({ look, urls }) => {
        const load = async (u: string) => createImageBitmap(await (await fetch(u)).blob());
        const mouths = Object.fromEntries(
          await Promise.all(Object.entries(urls.mouths).map(async ([v, u]) => [v, await load(u)] as const)),
        );
        const pictures = {
          base: await load(urls.base),
          mouths,
          blinks: await Promise.all(urls.blinks.map(load)),
        };
        const w = window as any;
        w.avatar?.close();
        w.avatar = w.MouthpieceDraw.createCanvasSpriteAvatar(look, pictures, document.getElementById('c'));
      },
      { look: m, urls },
    );
    const engine = createAvatarRenderer(m, { width: W, height: H }, pack.dir);
    const out: number[] = [];
    const shown: Uint8Array[] = [];
    for (const p of [
      pose(MOUTH_SHAPES.A),
      pose({ ...MOUTH_SHAPES.D, open: 0.7 }),
      pose(MOUTH_SHAPES.X, 0.6),
    ]) {
      await page.evaluate((p) => (window as any).avatar.draw(p), p);
      const e = engine.render(p).slice();
      const b = await canvasPixels();
      out.push(mad(b, e));
      shown.push(b);
      expect(mad(b, e), 'whole frame').toBeLessThan(2);
    }
    engine.close();
    expect(mad(shown[0]!, shown[1]!, MOUTH), 'the mouth opens').toBeGreaterThan(5);
    expect(mad(shown[0]!, shown[2]!, EYES), 'the eyes close').toBeGreaterThan(2);
    console.log(`sprites: browser vs engine MAD ${out.map((d) => d.toFixed(3)).join(' / ')}`);
  });
});
