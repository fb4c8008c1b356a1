/**
 * The video avatar played in the browser (docs/design.md §13.6): the SDK's video player
 * (packages/client/src/render/video-player.ts, bundled here with esbuild) composes, in Chromium,
 * the engine's frame from the pick the engine sends in each animation frame. For the same pick,
 * the browser's picture at the pack's size is the engine's frame (mean absolute difference ≈ 0:
 * the pick's weights cross the wire as bytes); between two picks only the composite's reach changes; a
 * frame without a pick shows the idle loop's base frame; at another canvas size the picture is
 * the engine's at that size within the scaling's difference. Through the SDK's pack loader
 * (pack-loader.ts), the frames come from the pack's VP9 files decoded by WebCodecs, and only they
 * are fetched; a page without VideoDecoder fetches the raw files and draws the engine's frame exactly.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeReach, i420Bytes, i420ToRgba, videoLayout, type PixelRect } from '@mouthpiece/draw';
import { createAvatarRenderer } from '@mouthpiece/engine/avatars';
import { rendererFiles } from '@mouthpiece/engine/jobs';
import { writeSyntheticVideoPack, type SyntheticVideoPack } from '@mouthpiece/engine/testing';
import { encodeAnimationFrame, type AnimationFrame, type VideoPick } from '@mouthpiece/protocol';
import { launchBrowser, type TestBrowser } from './harness/browser.js';
import { requireE2eEnvironment } from './harness/server.js';

const RENDER_DIR = fileURLToPath(new URL('../packages/client/src/render/', import.meta.url));
const SIZE = 256;
const REST_MOUTH = { open: 0, width: 0.35, round: 0, teeth: 0, lipBite: 0, tongue: 0 };
const MOTION = { blink: 0, headX: 0, headY: 0, tilt: 0, breath: 0, brow: 0, gazeX: 0, gazeY: 0 };

let browser: TestBrowser;
let page: Page;
let bundle: string;
let root: string;
let pack: SyntheticVideoPack;

/** The player and the protocol's decoder as one page script (global VideoPlayerTest). */
async function playerBundle(): Promise<string> {
  const out = await build({
    stdin: {
      contents: [
        "export { videoRenderer } from './video-player.ts';",
        "export { PackLoader } from './pack-loader.ts';",
        "export { decodeAnimationFrame } from '@mouthpiece/protocol';",
      ].join('\n'),
      resolveDir: RENDER_DIR,
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    globalName: 'VideoPlayerTest',
    target: ['chrome100'],
    write: false,
    logLevel: 'warning',
  });
  return out.outputFiles[0]!.text;
}

/** Gives the page the pack's files (as GET …/avatar lists them) and makes its player. */
async function openPlayer(p: SyntheticVideoPack, width: number, height: number): Promise<void> {
  const files = [
    ['video.json', 'video-index'],
    ['base.i420', 'base-frames'],
    ['mouths.i420', 'mouth-library'],
  ].map(([name, role]) => ({ name, role, b64: readFileSync(join(p.dir, name!)).toString('base64') }));
  await page.evaluate(
    async ({ id, files, width, height }) => {
      const w = window as any;
      w.player?.close();
      const bytes = new Map(
        files.map((f) => [f.name, Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0)).buffer]),
      );
      const pack = {
        id,
        render: 'video',
        manifest: { id, render: 'video' },
        files: files.map((f) => ({
          name: f.name,
          role: f.role,
          url: `/v1/avatar-session/s/avatar/${f.name}`,
          bytes: bytes.get(f.name)!.byteLength,
          contentType: 'application/octet-stream',
          etag: '"e2e"',
        })),
        bytes,
      };
      const canvas = document.getElementById('c') as HTMLCanvasElement;
      w.player = await w.VideoPlayerTest.videoRenderer(pack, canvas, {});
      w.player.resize(width, height);
    },
    { id: p.manifest.id, files, width, height },
  );
}

/**
 * Loads the pack through the SDK's pack loader (its fetch answered from the pack's files, as the
 * pack route lists and serves them) and makes the player of what it loaded: the files fetched and
 * the load's time in the page (download, decode).
 */
async function loadPlayer(
  p: SyntheticVideoPack,
  size: number,
): Promise<{ fetched: string[]; loadMs: number }> {
  const files = rendererFiles(p.manifest).map(({ name, role, encodes, codec }) => {
    const bytes = readFileSync(join(p.dir, name));
    const url = `/v1/avatar-session/s/avatar/${name}`;
    const entry = { name, role, url, bytes: bytes.length, contentType: 'application/octet-stream' };
    return {
      ...entry,
      etag: `"${name}"`,
      ...(encodes ? { encodes, codec } : {}),
      b64: bytes.toString('base64'),
    };
  });
  return page.evaluate(
    async ({ id, files, size }) => {
      const w = window as any;
      w.player?.close();
      const bodies = new Map(
        files.map((f) => [f.name, Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))]),
      );
      const listing = files.map(({ b64: _, ...f }) => f);
      const fetched: string[] = [];
      const serve = (url: string) => {
        if (url.endsWith('/avatar')) {
          const avatar = { id, render: 'video', manifest: { id, render: 'video' }, files: listing };
          return Promise.resolve(new Response(JSON.stringify({ success: true, avatar })));
        }
        const name = decodeURIComponent(url.split('/').pop()!);
        fetched.push(name);
        return Promise.resolve(new Response(bodies.get(name), { headers: { ETag: `"${name}"` } }));
      };
      const t0 = performance.now();
      const pack = await new w.VideoPlayerTest.PackLoader(serve).load('http://mp.test', 's', 't');
      const loadMs = performance.now() - t0;
      const canvas = document.getElementById('c') as HTMLCanvasElement;
      w.player = await w.VideoPlayerTest.videoRenderer(pack, canvas, {});
      w.player.resize(size, size);
      return { fetched: fetched.sort(), loadMs };
    },
    { id: p.manifest.id, files, size },
  );
}

/** Draws one animation frame (sent through the wire format) and reads the page canvas back as RGBA. */
async function drawn(frame: AnimationFrame): Promise<Uint8Array> {
  const b64 = await page.evaluate(
    (bytes) => {
      const w = window as any;
      w.player.draw(w.VideoPlayerTest.decodeAnimationFrame(new Uint8Array(bytes)));
      const c = document.getElementById('c') as HTMLCanvasElement;
      const px = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let s = '';
      for (let i = 0; i < px.length; i += 0x8000) s += String.fromCharCode(...px.subarray(i, i + 0x8000));
      return btoa(s);
    },
    Array.from(encodeAnimationFrame(frame)),
  );
  return new Uint8Array(Buffer.from(b64, 'base64'));
}

const frame = (sampleIndex: number, video?: VideoPick): AnimationFrame => ({
  sampleIndex,
  speaking: video !== undefined && video.fade > 0,
  mouth: REST_MOUTH,
  motion: MOTION,
  ...(video ? { video } : {}),
});

/** Mean absolute difference per colour channel, inside or outside a rectangle (the whole frame by default). */
function mad(
  a: Uint8Array | Uint8ClampedArray,
  b: Uint8Array | Uint8ClampedArray,
  width: number,
  height: number,
  r?: PixelRect,
  outside = false,
): number {
  let sum = 0;
  let n = 0;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const inRect = !r || (x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1);
      if (inRect === outside && r) continue;
      const i = (y * width + x) * 4;
      sum += Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!);
      n += 3;
    }
  return n ? sum / n : 0;
}

const speak = (open: number) => ({
  mouth: { ...REST_MOUTH, open, width: 0.45, round: 0.1, teeth: 0.3 },
  motion: MOTION,
  speaking: true,
});
const rest = { mouth: REST_MOUTH, motion: MOTION, speaking: false };

beforeAll(async () => {
  requireE2eEnvironment();
  root = mkdtempSync(join(tmpdir(), 'mp-e2e-video-player-'));
  let synthetic: SyntheticVideoPack;
  [bundle, synthetic] = await Promise.all([
    playerBundle(),
    writeSyntheticVideoPack(root, { size: SIZE, encoded: true }),
  ]);
  pack = synthetic;
  browser = await launchBrowser();
  page = await playerPage();
});

/**
 * A page with the player's bundle, at an https origin (answered here, no network): WebCodecs
 * exists only in secure contexts, as the SDK's pages are served.
 */
async function playerPage(init?: () => void): Promise<Page> {
  const p = await browser.context.newPage();
  await p.route('https://player.test/', (r) =>
    r.fulfill({ contentType: 'text/html', body: '<html><body><canvas id="c"></canvas></body></html>' }),
  );
  if (init) await p.addInitScript(init);
  await p.goto('https://player.test/');
  await p.addScriptTag({ content: bundle });
  return p;
}
afterAll(async () => {
  await browser?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/**
 * Plays the states through the engine twice over (two renderers of one pack choose alike: one
 * picks, as for a viewer that draws, one renders at w×h) and draws each pick in the browser;
 * the mean absolute difference of each frame.
 */
async function engineVsBrowser(
  states: Array<typeof rest>,
  w: number,
  h: number,
  open: () => Promise<unknown> = () => openPlayer(pack, w, h),
): Promise<number[]> {
  await open();
  const picker = createAvatarRenderer(pack.manifest, { width: SIZE, height: SIZE }, pack.dir);
  const drawer = createAvatarRenderer(pack.manifest, { width: w, height: h }, pack.dir);
  const diffs: number[] = [];
  try {
    for (const [t, s] of states.entries()) {
      const pick = picker.pick!(s);
      const engine = drawer.render(s);
      const b = await drawn(frame(t * 1920, pick));
      expect(b.length).toBe(w * h * 4);
      diffs.push(mad(b, engine, w, h));
    }
  } finally {
    picker.close();
    drawer.close();
  }
  return diffs;
}

describe('the video avatar’s player in Chromium', () => {
  it('draws the engine’s frame for the engine’s pick, at the pack’s size', async () => {
    const states = [
      rest,
      rest,
      ...Array(6).fill(speak(0.9)),
      ...Array(3).fill(speak(0.3)),
      ...Array(4).fill(rest),
    ];
    const diffs = await engineVsBrowser(states, SIZE, SIZE);
    console.log(`${SIZE}²: browser vs engine MAD per frame ${diffs.map((d) => d.toFixed(3)).join(' ')}`);
    for (const d of diffs) expect(d).toBeLessThan(0.05);
  });

  it('between two picks only the composite’s reach changes; a frame without a pick shows the base frame', async () => {
    await openPlayer(pack, SIZE, SIZE);
    const { index } = pack;
    // where a composite on base frame 2 may reach: the mouth box and the neck the chin warp moves
    const mouths = new Uint8Array(readFileSync(join(pack.dir, 'mouths.i420')));
    const r = composeReach(videoLayout(index, mouths, { width: SIZE, height: SIZE }), 2);
    const pick = (a: number): VideoPick => ({ baseFrame: 2, a, wa: 1, b: a, wb: 0, fade: 1 });
    const closed = await drawn(frame(0, pick(0)));
    const open = await drawn(frame(1920, pick(11)));
    expect(mad(closed, open, SIZE, SIZE, r), 'the mouth box').toBeGreaterThan(3);
    expect(mad(closed, open, SIZE, SIZE, r, true), 'outside it').toBe(0);
    const bytes = i420Bytes(SIZE, SIZE);
    const base = readFileSync(join(pack.dir, 'base.i420'));
    const baseRgba = (i: number) =>
      i420ToRgba(new Uint8Array(base.subarray(i * bytes, (i + 1) * bytes)), SIZE, SIZE);
    // no pick: the idle loop at the stamp's time (the synthetic footage is 25 fps: 1920 samples a frame)
    expect(mad(await drawn(frame(3 * 1920)), baseRgba(3), SIZE, SIZE)).toBe(0);
    expect(mad(await drawn(frame(9 * 1920)), baseRgba(1), SIZE, SIZE)).toBe(0);
    expect(
      mad(open, baseRgba(2), SIZE, SIZE, r, true),
      'a pick’s frame outside the box is its base frame',
    ).toBe(0);
  });

  it('at another canvas size shows the engine’s frame of that size (scaled to cover, centred)', async () => {
    const states = [rest, ...Array(4).fill(speak(0.8))];
    for (const [w, h] of [
      [512, 512],
      [512, 288],
    ] as const) {
      const diffs = await engineVsBrowser(states, w, h);
      console.log(
        `${w}×${h}: browser (scaled by the canvas) vs engine (scaled in I420) MAD ${diffs.map((d) => d.toFixed(3)).join(' ')}`,
      );
      for (const d of diffs) expect(d).toBeLessThan(2);
    }
  });

  it('decodes the pack’s VP9 files with WebCodecs at load (and only those are fetched); without VideoDecoder, the raw files', async () => {
    const states = [rest, ...Array(4).fill(speak(0.9)), speak(0.3), rest];
    let loaded = { fetched: [] as string[], loadMs: 0 };
    const decoded = await engineVsBrowser(
      states,
      SIZE,
      SIZE,
      async () => (loaded = await loadPlayer(pack, SIZE)),
    );
    expect(loaded.fetched).toEqual(['base.ivf', 'mouths.ivf', 'video.json']);
    console.log(
      `${SIZE}² from VP9 (${loaded.loadMs.toFixed(0)} ms to load and decode): browser vs engine MAD ${decoded.map((d) => d.toFixed(3)).join(' ')}`,
    );
    for (const d of decoded) expect(d).toBeLessThan(1);
    expect(Math.max(...decoded), 'decoded, not the raw bytes').toBeGreaterThan(0);

    const bare = await playerPage(() => delete (window as any).VideoDecoder);
    const page0 = page;
    try {
      page = bare;
      const raw = await engineVsBrowser(
        states,
        SIZE,
        SIZE,
        async () => (loaded = await loadPlayer(pack, SIZE)),
      );
      expect(loaded.fetched).toEqual(['base.i420', 'mouths.i420', 'video.json']);
      for (const d of raw) expect(d).toBeLessThan(0.05);
    } finally {
      page = page0;
      await bare.close();
    }
  });

  it('measures a frame’s cost in Chromium at 256² and 512² (printed, not asserted)', async () => {
    const big = await writeSyntheticVideoPack(root, { id: 'big', size: 512 });
    for (const p of [pack, big]) {
      await openPlayer(p, p.index.size, p.index.size);
      // every frame another base frame and other crops, so each one is composed and converted
      const frames = Array.from({ length: 100 }, (_, t) =>
        Array.from(
          encodeAnimationFrame(
            frame(t * 1920, { baseFrame: t % 8, a: t % 12, wa: 0.7, b: (t + 1) % 12, wb: 0.3, fade: 1 }),
          ),
        ),
      );
      const ms = await page.evaluate((frames) => {
        const w = window as any;
        const canvas = document.getElementById('c') as HTMLCanvasElement;
        const decoded = frames.map((f) => w.VideoPlayerTest.decodeAnimationFrame(new Uint8Array(f)));
        const rest = decoded.map((f: any) => ({ ...f, video: { ...f.video, fade: 0 } }));
        /** Median and 90th percentile of a frame drawn and rasterised (a 1-pixel read flushes the canvas). */
        const time = (list: unknown[]) => {
          const each = list.map((f) => {
            const t0 = performance.now();
            w.player.draw(f);
            canvas.getContext('2d')!.getImageData(0, 0, 1, 1);
            return performance.now() - t0;
          });
          const sorted = each.slice(20).sort((x, y) => x - y);
          return { median: sorted[sorted.length >> 1]!, p90: sorted[Math.floor(sorted.length * 0.9)]! };
        };
        return { talking: time(decoded), rest: time(rest) };
      }, frames);
      const f = (m: { median: number; p90: number }) => `${m.median.toFixed(2)} ms (p90 ${m.p90.toFixed(2)})`;
      console.log(
        `${p.index.size}²: a frame talking (compose + convert + show) ${f(ms.talking)}, at rest (convert + show) ${f(ms.rest)}`,
      );
    }
  });
});
