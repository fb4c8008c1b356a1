/**
 * The photo avatar drawn by the browser with WebGL (packages/client/src/render/photo-gl.ts,
 * docs/design.md §13.5), in Chromium (WebGL 2 on ANGLE's SwiftShader here): for the same face
 * state it draws the engine's Skia frame within filtering differences, over the face and in the
 * mouth; its mouth moves with the opening while its eyes stay; at 2× (a 1024² canvas for a 512²
 * container) it is sharper than the video a 512² engine frame gives; a page without WebGL makes
 * the factory reject with 'no-webgl'; a lost WebGL context (WEBGL_lose_context) takes no GL call
 * and throws nothing, and once restored the renderer draws the current state whole, exactly as a
 * new renderer would, and goes on drawing. The portrait is the astronaut test fixture (python3-skimage).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { MOUTH_SHAPES, type FacePose, type MouthParams } from '@mouthpiece/draw';
import { createAvatarRenderer, importPhotoAvatar, loadAvatarPack } from '@mouthpiece/engine/avatars';
import { portraitFixture } from '@mouthpiece/engine/testing';
import { launchBrowser, type TestBrowser } from './harness/browser.js';
import { requireE2eEnvironment } from './harness/server.js';

const RENDER_DIR = fileURLToPath(new URL('../packages/client/src/render/', import.meta.url));
const REST = { blink: 0, headX: 0, headY: 0, tilt: 0, breath: 0, brow: 0, gazeX: 0, gazeY: 0 };

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}
type Photo = Extract<ReturnType<typeof loadAvatarPack>['manifest'], { render: 'photo' }>;

let browser: TestBrowser;
let page: Page;
let packs: string;
let manifest: Photo;
let dir: string;
let bundle: string;
let portraitWidth: number;

/**
 * The page's script: the bundle's photoRenderer on a canvas, drawing and reading back frames; its
 * context watched as the SDK's view watches it (a restored context: restore(), resize, the
 * current frame drawn: canvas-view.ts).
 */
const PAGE_SCRIPT = `
window.setUp = async (packJson, pngB64, size) => {
  window.renderer?.close();
  window.watch?.close();
  window.contextEvents = [];
  document.body.innerHTML = '<canvas id="c"></canvas>';
  const c = document.getElementById('c');
  const png = Uint8Array.from(atob(pngB64), (ch) => ch.charCodeAt(0)).buffer;
  const pack = JSON.parse(packJson);
  pack.bytes = new Map([[pack.files[0].name, png]]);
  try {
    window.renderer = await window.PhotoGl.photoRenderer(pack, c, {});
  } catch (e) {
    return { error: e.name, reason: e.reason };
  }
  window.renderer.resize(size, size);
  window.watch = new window.PhotoGl.ContextLossWatch(c, {
    lost: () => window.contextEvents.push('lost'),
    restored: () => {
      window.contextEvents.push('restored');
      window.renderer.restore();
      window.renderer.resize(size, size);
      if (window.current) window.renderer.draw(window.current);
    },
    gaveUp: () => window.contextEvents.push('gaveUp'),
  }, document);
  return { error: null };
};
window.drawRead = (frame) => {
  window.current = frame;
  window.renderer.draw(frame);
  return window.read();
};
window.read = () => {
  const c = document.getElementById('c');
  const gl = c.getContext('webgl2') || c.getContext('webgl');
  const px = new Uint8Array(c.width * c.height * 4);
  gl.readPixels(0, 0, c.width, c.height, gl.RGBA, gl.UNSIGNED_BYTE, px);
  const out = new Uint8Array(px.length);
  const stride = c.width * 4;
  for (let r = 0; r < c.height; r++) out.set(px.subarray((c.height - 1 - r) * stride, (c.height - r) * stride), r * stride);
  let s = '';
  for (let i = 0; i < out.length; i += 0x8000) s += String.fromCharCode(...out.subarray(i, i + 0x8000));
  return btoa(s);
};
window.timeDraws = (frames) => {
  const c = document.getElementById('c');
  const gl = c.getContext('webgl2') || c.getContext('webgl');
  const one = new Uint8Array(4);
  const ms = [];
  for (const f of frames) {
    const t = performance.now();
    window.renderer.draw(f);
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, one); // waits for the frame's drawing
    ms.push(performance.now() - t);
  }
  return ms;
};`;

beforeAll(async () => {
  requireE2eEnvironment();
  packs = mkdtempSync(join(tmpdir(), 'mp-e2e-photo-gl-'));
  await importPhotoAvatar({ id: 'astro', name: 'Astro', image: await portraitFixture({ scale: 2 }) }, packs);
  const pack = loadAvatarPack(join(packs, 'astro'));
  if (pack.manifest.render !== 'photo') throw new Error('not a photo pack');
  manifest = pack.manifest;
  dir = pack.dir;
  portraitWidth = readFileSync(join(dir, manifest.image)).readUInt32BE(16); // PNG IHDR width
  const out = await build({
    stdin: {
      contents:
        "export { photoRenderer } from './photo-gl.ts'; export { ContextLossWatch } from './context-loss.ts';",
      resolveDir: RENDER_DIR,
      loader: 'ts',
    },
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'PhotoGl',
    target: ['chrome100'],
    logLevel: 'warning',
  });
  bundle = out.outputFiles[0]!.text;
  browser = await launchBrowser();
  page = await browser.context.newPage();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  if (packs) rmSync(packs, { recursive: true, force: true });
});

/** Loads the bundle and the pack into `p` and makes the renderer at size×size device pixels. */
async function setUp(
  p: Page,
  size: number,
  m: Record<string, unknown> = manifest,
): Promise<{ error: string | null; reason?: string }> {
  await p.setContent('<html><body></body></html>');
  await p.addScriptTag({ content: bundle });
  await p.addScriptTag({ content: PAGE_SCRIPT });
  const png = readFileSync(join(dir, manifest.image));
  const packJson = JSON.stringify({
    id: manifest.id,
    render: 'photo',
    manifest: m,
    files: [
      {
        name: manifest.image,
        role: 'texture',
        url: '',
        bytes: png.length,
        contentType: 'image/png',
        etag: '',
      },
    ],
  });
  return p.evaluate(
    ([j, b, s]) => (window as any).setUp(j, b, s) as Promise<{ error: string | null; reason?: string }>,
    [packJson, png.toString('base64'), size] as const,
  );
}

const frameOf = (pose: FacePose) => ({ sampleIndex: 0, speaking: true, ...pose });

async function browserFrame(pose: FacePose): Promise<Uint8Array> {
  const b64 = await page.evaluate((f) => (window as any).drawRead(f) as string, frameOf(pose));
  return new Uint8Array(Buffer.from(b64, 'base64'));
}

function engineFrames(size: number, poses: FacePose[]): Uint8ClampedArray[] {
  const r = createAvatarRenderer(manifest, { width: size, height: size }, dir);
  try {
    return poses.map((p) => r.render(p).slice());
  } finally {
    r.close();
  }
}

/** The box around landmarks at `size` (the portrait is square: it fills the frame), grown by `pad`. */
function box(ids: number[], pad: number, size: number): Box {
  const k = size / portraitWidth;
  const xs = ids.map((i) => manifest.landmarks[i]![0] * k);
  const ys = ids.map((i) => manifest.landmarks[i]![1] * k);
  const x = Math.floor(Math.min(...xs) - pad);
  const y = Math.floor(Math.min(...ys) - pad);
  return { x, y, w: Math.ceil(Math.max(...xs) + pad) - x, h: Math.ceil(Math.max(...ys) + pad) - y };
}
const FACE = [...Array(68).keys()];
const MOUTH = [48, 50, 52, 54, 57, 8];
const EYES = [36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47];

/** Mean absolute difference per colour channel inside a box. */
function mad(a: ArrayLike<number>, b: ArrayLike<number>, r: Box, width: number): number {
  let sum = 0;
  for (let y = r.y; y < r.y + r.h; y++)
    for (let x = r.x; x < r.x + r.w; x++) {
      const i = (y * width + x) * 4;
      sum += Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!);
    }
  return sum / (3 * r.w * r.h);
}

/** Mean squared Laplacian of the luma inside a box: the picture's finest detail (higher = sharper). */
function detail(px: ArrayLike<number>, r: Box, width: number): number {
  const l = (x: number, y: number) => {
    const i = (y * width + x) * 4;
    return 0.299 * px[i]! + 0.587 * px[i + 1]! + 0.114 * px[i + 2]!;
  };
  let sum = 0;
  for (let y = r.y + 1; y < r.y + r.h - 1; y++)
    for (let x = r.x + 1; x < r.x + r.w - 1; x++) {
      const v = 4 * l(x, y) - l(x - 1, y) - l(x + 1, y) - l(x, y - 1) - l(x, y + 1);
      sum += v * v;
    }
  return sum / ((r.w - 2) * (r.h - 2));
}

/** A frame scaled ×2 bilinearly, as a browser shows a 512² video in a 1024-device-pixel box. */
function upscale2(src: ArrayLike<number>, size: number): Uint8ClampedArray {
  const out = new Uint8ClampedArray(size * 2 * size * 2 * 4);
  for (let y = 0; y < size * 2; y++)
    for (let x = 0; x < size * 2; x++) {
      const fx = Math.min(size - 1.001, Math.max(0, (x + 0.5) / 2 - 0.5));
      const fy = Math.min(size - 1.001, Math.max(0, (y + 0.5) / 2 - 0.5));
      const ix = fx | 0;
      const iy = fy | 0;
      const tx = fx - ix;
      const ty = fy - iy;
      for (let c = 0; c < 3; c++) {
        const at = (xx: number, yy: number) => src[(yy * size + xx) * 4 + c]!;
        const top = at(ix, iy) + (at(ix + 1, iy) - at(ix, iy)) * tx;
        const bot = at(ix, iy + 1) + (at(ix + 1, iy + 1) - at(ix, iy + 1)) * tx;
        out[(y * size * 2 + x) * 4 + c] = top + (bot - top) * ty;
      }
    }
  return out;
}

const pose = (mouth: MouthParams, motion: Partial<typeof REST> = {}): FacePose => ({
  mouth: { ...mouth },
  motion: { ...REST, ...motion },
});

describe('the photo avatar in WebGL', () => {
  it("draws the engine's frame for the same face state; the mouth moves with the opening, the eyes stay", async () => {
    const size = 512;
    expect(await setUp(page, size)).toEqual({ error: null });
    const poses = [
      pose(MOUTH_SHAPES.X),
      pose({ ...MOUTH_SHAPES.D, teeth: 0.6 }),
      pose(MOUTH_SHAPES.C, { tilt: 0.031, headX: 3.4, headY: -1.2, breath: 0.6, brow: 0.5 }),
      pose(MOUTH_SHAPES.F, { blink: 1 }),
      pose({ ...MOUTH_SHAPES.H, tongue: 1 }),
    ];
    const gl: Uint8Array[] = [];
    for (const p of poses) gl.push(await browserFrame(p));
    const cpu = engineFrames(size, poses);
    const face = box(FACE, 20, size);
    const mouth = box(MOUTH, 6, size);
    const eyes = box(EYES, 4, size);
    const faceMad = gl.map((f, i) => mad(f, cpu[i]!, face, size));
    const mouthMad = gl.map((f, i) => mad(f, cpu[i]!, mouth, size));
    console.log(
      `photo WebGL vs engine at 512²: face MAD ${faceMad.map((d) => d.toFixed(2)).join(' / ')},` +
        ` mouth MAD ${mouthMad.map((d) => d.toFixed(2)).join(' / ')}`,
    );
    for (let i = 0; i < poses.length; i++) {
      expect(faceMad[i], `face, pose ${i}`).toBeLessThan(1.5);
      expect(mouthMad[i], `mouth, pose ${i}`).toBeLessThan(2);
    }
    const [closed, open] = gl as [Uint8Array, Uint8Array];
    expect(mad(closed, open, mouth, size), 'the mouth opens').toBeGreaterThan(10);
    expect(mad(closed, open, eyes, size), 'the eyes stay').toBeLessThan(0.5);
    expect(mad(closed, gl[3]!, eyes, size), 'the eyes blink').toBeGreaterThan(5);
    expect(mad(closed, gl[2]!, face, size), 'the head moves').toBeGreaterThan(2);
  });

  it('a frame whose head stayed put (only the mouth region redrawn) is the frame drawn whole', async () => {
    const size = 512;
    const wide = pose({ ...MOUTH_SHAPES.D, teeth: 0.8 }, { headX: 2, blink: 0.5 });
    const narrow = pose({ ...MOUTH_SHAPES.F, open: 0.1 }, { headX: 2, brow: 0.6 });
    expect(await setUp(page, size)).toEqual({ error: null });
    await browserFrame(wide);
    const partial = await browserFrame(narrow);
    expect(await setUp(page, size)).toEqual({ error: null });
    const whole = await browserFrame(narrow);
    let max = 0;
    for (let i = 0; i < whole.length; i++) max = Math.max(max, Math.abs(whole[i]! - partial[i]!));
    const all = { x: 0, y: 0, w: size, h: size };
    console.log(
      `head still, mouth region alone vs the whole frame: MAD ${mad(partial, whole, all, size).toFixed(4)}, max ${max}`,
    );
    expect(mad(partial, whole, all, size)).toBeLessThan(0.01);
    expect(mad(partial, whole, box(MOUTH, 6, size), size)).toBeLessThan(0.1);
  });

  it('a lost context: no GL call, no error; restored, the current state is drawn whole and the mouth moves again', async () => {
    const size = 256;
    const errors: string[] = [];
    const onError = (e: Error) => errors.push(e.message);
    page.on('pageerror', onError);
    const open = pose({ ...MOUTH_SHAPES.D, teeth: 0.8 }, { headX: 2, blink: 0.5 });
    const narrow = pose({ ...MOUTH_SHAPES.F, open: 0.1 }, { headX: 2, brow: 0.6 }); // (same head: partial)
    const closed = pose(MOUTH_SHAPES.X, { headX: 2 });
    expect(await setUp(page, size)).toEqual({ error: null });
    await browserFrame(open);
    const lost = await page.evaluate(
      async (frames) => {
        const w = window as any;
        const c = document.getElementById('c') as HTMLCanvasElement;
        const gl = (c.getContext('webgl2') ?? c.getContext('webgl'))!;
        // every GL call made while the context is lost is counted
        let callsWhileLost = 0;
        for (const name of Object.keys(Object.getPrototypeOf(gl) as object)) {
          const f = (gl as any)[name];
          if (typeof f !== 'function' || name === 'isContextLost') continue;
          (gl as any)[name] = (...args: unknown[]) => {
            if (gl.isContextLost()) callsWhileLost++;
            return f.apply(gl, args);
          };
        }
        const ext = gl.getExtension('WEBGL_lose_context')!;
        ext.loseContext();
        // a frame between the loss and its event (the SDK's view has not heard yet), then after it
        w.current = frames[0];
        w.renderer.draw(frames[0]);
        const until = performance.now() + 2000;
        while (!w.contextEvents.includes('lost') && performance.now() < until)
          await new Promise((res) => setTimeout(res, 10));
        w.renderer.draw(frames[1]);
        const counted = callsWhileLost;
        const wasLost = gl.isContextLost();
        w.current = frames[0]; // (the state to show when it is back)
        ext.restoreContext();
        while (!w.contextEvents.includes('restored') && performance.now() < until + 2000)
          await new Promise((res) => setTimeout(res, 10));
        return { counted, wasLost, events: [...w.contextEvents] as string[] };
      },
      [frameOf(narrow), frameOf(closed)],
    );
    expect(lost).toEqual({ counted: 0, wasLost: true, events: ['lost', 'restored'] });
    // the restored canvas shows the current state, drawn whole (the head did not move: a renderer
    // that kept its partial-redraw state would draw only the mouth's region on a cleared canvas)
    const restored = new Uint8Array(
      Buffer.from(await page.evaluate(() => (window as any).read() as string), 'base64'),
    );
    const moved = await browserFrame(closed); // and it goes on: the mouth closes
    expect(await setUp(page, size)).toEqual({ error: null });
    const whole = await browserFrame(narrow);
    const wholeClosed = await browserFrame(closed);
    page.off('pageerror', onError);
    const all = { x: 0, y: 0, w: size, h: size };
    const mouth = box(MOUTH, 6, size);
    console.log(
      `context restored: the current state vs a new renderer's MAD ${mad(restored, whole, all, size).toFixed(4)};` +
        ` the mouth after vs before ${mad(moved, restored, mouth, size).toFixed(2)}`,
    );
    expect(errors).toEqual([]);
    expect(mad(restored, whole, all, size)).toBeLessThan(0.01);
    expect(mad(restored, whole, mouth, size)).toBeLessThan(0.1);
    expect(mad(moved, restored, mouth, size), 'the mouth moves again').toBeGreaterThan(5);
    expect(mad(moved, wholeClosed, all, size)).toBeLessThan(0.01);
  });

  it('at 2× (1024² for a 512² container) it is sharper than the video of a 512² engine frame', async () => {
    const p = pose({ ...MOUTH_SHAPES.D, open: 0.7, teeth: 0.7 });
    expect(await setUp(page, 1024)).toEqual({ error: null });
    const gl = await browserFrame(p);
    const video = upscale2(engineFrames(512, [p])[0]!, 512);
    const cpu1024 = engineFrames(1024, [p])[0]!;
    const face = box(FACE, 10, 1024);
    const mouth = box(MOUTH, 8, 1024);
    const d = {
      gl: [detail(gl, face, 1024), detail(gl, mouth, 1024)],
      video: [detail(video, face, 1024), detail(video, mouth, 1024)],
      cpu: [detail(cpu1024, face, 1024), detail(cpu1024, mouth, 1024)],
    };
    console.log(
      `detail (mean squared Laplacian, face / mouth) at 1024²: WebGL ${d.gl.map((v) => v.toFixed(1)).join(' / ')},` +
        ` 512² video ×2 ${d.video.map((v) => v.toFixed(1)).join(' / ')},` +
        ` engine at 1024² ${d.cpu.map((v) => v.toFixed(1)).join(' / ')}; WebGL vs engine 1024² face MAD` +
        ` ${mad(gl, cpu1024, face, 1024).toFixed(2)}`,
    );
    expect(d.gl[0]!, 'face').toBeGreaterThan(1.5 * d.video[0]!);
    expect(d.gl[1]!, 'mouth').toBeGreaterThan(1.5 * d.video[1]!);
  });

  it('measures the frame cost at 512² and 1024² (SwiftShader: WebGL on the CPU)', async () => {
    // speaking with the head still (only the mouth's region is redrawn), and with the head moving
    const still = Array.from({ length: 40 }, (_, i) =>
      frameOf(pose({ ...MOUTH_SHAPES.D, open: 0.2 + 0.6 * ((i % 8) / 8) })),
    );
    const moving = still.map((f, i) => ({ ...f, motion: { ...f.motion, headX: i % 3 } }));
    const figures: string[] = [];
    for (const size of [512, 1024])
      for (const [name, frames] of [
        ['head still', still],
        ['head moving', moving],
      ] as const) {
        expect(await setUp(page, size)).toEqual({ error: null });
        const ms = await page.evaluate((f) => (window as any).timeDraws(f) as number[], frames);
        const sorted = ms.slice(5).sort((a, b) => a - b);
        expect(sorted.length).toBe(35);
        figures.push(
          `${size}² ${name}: median ${sorted[17]!.toFixed(1)} ms, p90 ${sorted[31]!.toFixed(1)} ms`,
        );
      }
    console.log(`photo WebGL frame cost (draw + wait for the GPU): ${figures.join('; ')}`);
  });

  it("a page without WebGL: the factory rejects with 'no-webgl' (a pack without landmarks: 'pack-failed')", async () => {
    const p = await browser.context.newPage();
    // (every canvas answers null for WebGL, as in a browser with WebGL turned off)
    await p.addInitScript({
      content: `const original = HTMLCanvasElement.prototype.getContext;
        HTMLCanvasElement.prototype.getContext = function (type, ...rest) {
          return /webgl/.test(type) ? null : original.call(this, type, ...rest);
        };`,
    });
    await p.goto('about:blank');
    expect(await setUp(p, 256)).toEqual({ error: 'RendererUnavailable', reason: 'no-webgl' });
    // (and with WebGL, a pack whose manifest lost its landmarks cannot be drawn either)
    const { landmarks: _dropped, ...bare } = manifest;
    expect(await setUp(page, 256, bare)).toEqual({ error: 'RendererUnavailable', reason: 'pack-failed' });
    await p.close();
  });
});
