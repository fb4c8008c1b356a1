/** bench:video-download (run.mjs says what it measures). */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { it } from 'vitest';
import { createAvatarRenderer } from '@mouthpiece/engine/avatars';
import {
  encodeVideoForBrowsers,
  readAvatarPacks,
  rendererFiles,
  runVideoImport,
} from '@mouthpiece/engine/jobs';
import { makeTalkingClip, writeSyntheticVideoPack } from '@mouthpiece/engine/testing';
import { launchBrowser } from '../../e2e/harness/browser.js';
import { fmt, report, smoke } from '../lib/measure.js';

const RENDER_DIR = fileURLToPath(new URL('../../packages/client/src/render/', import.meta.url));
const PAIRS = [
  ['base.i420', 'base.ivf'],
  ['mouths.i420', 'mouths.ivf'],
] as const;

async function packDir(root: string): Promise<string> {
  const given = process.env['BENCH_PACK'];
  if (given) return given;
  if (smoke) return (await writeSyntheticVideoPack(root, { id: 'bench' })).dir;
  const clip = await makeTalkingClip({ durationS: 60, width: 1280, height: 720 });
  await runVideoImport({ id: 'bench', name: 'Bench', file: clip.file }, root);
  return join(root, 'bench');
}

/** Mean absolute difference and PSNR of two byte arrays of one length. */
function diff(a: Uint8Array, b: Uint8Array, step = 1, channels = 1): { mad: number; psnr: number } {
  let sum = 0;
  let sq = 0;
  let n = 0;
  for (let i = 0; i < a.length; i += step)
    for (let c = 0; c < channels; c++) {
      const e = Math.abs(a[i + c]! - b[i + c]!);
      sum += e;
      sq += e * e;
      n++;
    }
  return { mad: sum / n, psnr: 10 * Math.log10((255 * 255) / (sq / n)) };
}

/** The engine's 512² frames composed from the raw files and from the decoded ones, talking and at rest. */
function composedDiff(
  dir: string,
  decoded: string,
  size: number,
): { mad: number; worst: number; psnr: number } {
  const pack = readAvatarPacks([join(dir, '..')]).packs.find((p) => p.dir === dir)!;
  const a = createAvatarRenderer(pack.manifest, { width: size, height: size }, dir);
  const b = createAvatarRenderer(pack.manifest, { width: size, height: size }, decoded);
  const rest = { open: 0, width: 0.35, round: 0, teeth: 0, lipBite: 0, tongue: 0 };
  const motion = { blink: 0, headX: 0, headY: 0, tilt: 0, breath: 0, brow: 0, gazeX: 0, gazeY: 0 };
  const each: number[] = [];
  let psnr = 0;
  try {
    for (let t = 0; t < 150; t++) {
      const mouth = { ...rest, open: (Math.sin(t / 3) + 1) / 2, width: 0.5, teeth: 0.3 };
      const s = t % 50 < 35 ? { mouth, motion, speaking: true } : { mouth: rest, motion, speaking: false };
      const d = diff(a.render(s), b.render(s), 4, 3);
      each.push(d.mad);
      psnr += d.psnr / 150;
    }
  } finally {
    a.close();
    b.close();
  }
  return { mad: each.reduce((x, y) => x + y, 0) / each.length, worst: Math.max(...each), psnr };
}

/** Chromium's load of the pack's files through the SDK's pack loader (the raw ones are listed, not served). */
async function browserLoads(dir: string, runs: number): Promise<Array<{ ms: number; fetched: string[] }>> {
  const bundle = await build({
    stdin: {
      contents: "export { PackLoader } from './pack-loader.ts';",
      resolveDir: RENDER_DIR,
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    globalName: 'Bench',
    target: ['chrome100'],
    write: false,
  });
  const files = rendererFiles({ id: 'bench', name: 'Bench', version: 1, render: 'video' }).map((f) => ({
    name: f.name,
    role: f.role,
    url: `/v1/avatar-session/s/avatar/${f.name}`,
    bytes: statSync(join(dir, f.name)).size,
    contentType: 'application/octet-stream',
    etag: `"${f.name}"`,
    ...(f.encodes ? { encodes: f.encodes, codec: f.codec } : {}),
    b64: f.name.endsWith('.i420') ? '' : readFileSync(join(dir, f.name)).toString('base64'),
  }));
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    // WebCodecs needs a secure context: an https origin answered here
    await page.route('https://bench.test/', (r) =>
      r.fulfill({ contentType: 'text/html', body: '<html></html>' }),
    );
    await page.goto('https://bench.test/');
    await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
    const out = [];
    for (let k = 0; k < runs; k++)
      out.push(
        await page.evaluate(async (files) => {
          const bodies = new Map(
            files.map((f) => [f.name, Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))]),
          );
          const listing = files.map(({ b64: _, ...f }) => f);
          const fetched: string[] = [];
          const serve = (url: string) => {
            if (url.endsWith('/avatar')) {
              const avatar = { id: 'bench', render: 'video', manifest: {}, files: listing };
              return Promise.resolve(new Response(JSON.stringify({ success: true, avatar })));
            }
            const name = url.split('/').pop()!;
            fetched.push(name);
            return Promise.resolve(new Response(bodies.get(name), { headers: { ETag: `"${name}"` } }));
          };
          const t0 = performance.now();
          // a new loader each run: nothing kept from the run before
          await new (window as any).Bench.PackLoader(serve).load('https://bench.test', 's', 't');
          return { ms: performance.now() - t0, fetched: fetched.sort() };
        }, files),
      );
    return out;
  } finally {
    await browser.close();
  }
}

it('measures', async () => {
  const root = mkdtempSync(join(tmpdir(), 'mp-bench-download-'));
  try {
    const dir = await packDir(root);
    const index = JSON.parse(readFileSync(join(dir, 'video.json'), 'utf8'));
    const t0 = performance.now();
    await encodeVideoForBrowsers(dir, index);
    const encodeMs = performance.now() - t0;
    const decodedDir = join(root, 'decoded', 'bench');
    mkdirSync(decodedDir, { recursive: true });
    for (const f of ['avatar.json', 'video.json']) copyFileSync(join(dir, f), join(decodedDir, f));
    const rows = PAIRS.map(([raw, ivf]) => {
      const r = spawnSync(
        'ffmpeg',
        ['-v', 'error', '-i', join(dir, ivf), '-f', 'rawvideo', '-pix_fmt', 'yuv420p', 'pipe:1'],
        {
          maxBuffer: 1 << 30,
        },
      );
      writeFileSync(join(decodedDir, raw), r.stdout);
      const original = readFileSync(join(dir, raw));
      return {
        raw,
        ivf,
        rawBytes: original.length,
        ivfBytes: statSync(join(dir, ivf)).size,
        ...diff(original, r.stdout),
      };
    });
    const composed = composedDiff(dir, decodedDir, index.size);
    const loads = await browserLoads(dir, smoke ? 1 : 3);
    const total = (k: 'rawBytes' | 'ivfBytes') => rows.reduce((n, r) => n + r[k], 0);
    report(
      `video pack ${index.size}², ${index.base.frames} loop frames, ${index.library.frames} crops of ${index.library.box.width}×${index.library.box.height}${smoke ? ' (smoke: synthetic)' : ''}`,
    );
    report('file          raw bytes   VP9 bytes   ratio   MAD   PSNR dB');
    for (const r of rows)
      report(
        `${r.ivf.padEnd(12)} ${String(r.rawBytes).padStart(10)} ${String(r.ivfBytes).padStart(11)} ${fmt(r.rawBytes / r.ivfBytes, 0).padStart(6)}× ${fmt(r.mad, 2).padStart(5)} ${fmt(r.psnr, 1).padStart(7)}`,
      );
    report(
      `total        ${String(total('rawBytes')).padStart(10)} ${String(total('ivfBytes')).padStart(11)} ${fmt(total('rawBytes') / total('ivfBytes'), 0).padStart(6)}×`,
    );
    report(`encode (ffmpeg libvpx-vp9): ${fmt(encodeMs / 1000, 1)} s`);
    report(
      `engine's frames from decoded vs raw files (150, RGB): MAD ${fmt(composed.mad, 2)} (worst ${fmt(composed.worst, 2)}), PSNR ${fmt(composed.psnr, 1)} dB`,
    );
    report(
      `Chromium load (WebCodecs decode) ms: ${loads.map((l) => fmt(l.ms)).join(' ')}; fetched ${loads[0]!.fetched.join(', ')}`,
    );
    report(
      JSON.stringify({
        bench: 'video-download',
        smoke,
        size: index.size,
        frames: index.base.frames + index.library.frames,
        rawBytes: total('rawBytes'),
        vp9Bytes: total('ivfBytes'),
        files: rows.map((r) => ({
          file: r.ivf,
          rawBytes: r.rawBytes,
          vp9Bytes: r.ivfBytes,
          mad: +r.mad.toFixed(3),
          psnr: +r.psnr.toFixed(1),
        })),
        encodeSeconds: +(encodeMs / 1000).toFixed(1),
        composedMad: +composed.mad.toFixed(3),
        loadMs: loads.map((l) => Math.round(l.ms)),
      }),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
