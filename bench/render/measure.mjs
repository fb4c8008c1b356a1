// Per-frame cost of the CPU media path for each built-in avatar, a sprite pack made from amara, a photo avatar and a (synthetic)
// video avatar at 512×512 and 1280×720: Skia render + read-back, RGBA → I420 (libyuv via wrtc) —
// or, for a renderer that renders I420 itself (video), renderI420 and no conversion — and VP8 encode (libwebrtc's own
// totalEncodeTime for frames sent to a receiver peer in this process), with each stage's share.
// Frames are fed at 25 fps, as the engine does, yielding between frames (Skia read-back buffers
// are freed only when the event loop turns). A renderer that tells what changed (renderRegion: the
// vector and sprite avatars) runs twice: whole frames (row "id"), and only the changed region drawn, read back
// and converted, an unchanged frame sent again (row "id rgn"), as the engine does. Beside the
// wall-clock stages, the CPU time per frame of the JS thread and of libwebrtc's encoder thread
// (from /proc: robust to other processes sharing the cores, which stretch wall-clock figures).
// Run through run.mjs (it enters a network namespace).
import { parseArgs } from 'node:util';
import wrtc from '@roamhq/wrtc';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BUILTIN_AVATARS_DIR,
  loadAvatarPack,
  readAvatarPacks,
} from '../../packages/engine/dist/avatar/catalog.js';
import { spritePackFromVector } from '../../packages/engine/dist/avatar/sprite-from-vector.js';
import { createAnimator } from '../../packages/engine/dist/animation/animator.js';
import { MOUTH_SHAPES } from '../../packages/engine/dist/lipsync/mouth-shapes.js';
import { createAvatarRenderer } from '../../packages/engine/dist/render/avatar-renderer.js';
import { I420Region } from '../../packages/engine/dist/rtc/i420-region.js';
import {
  loopbackPeers as loopback,
  outboundVideo as encodeStats,
  threadCpu,
} from '../lib/loopback-peers.mjs';
import { photoBenchPack } from '../lib/photo-pack.mjs';
import { videoBenchPack } from '../lib/video-pack.mjs';

const { values } = parseArgs({
  options: { frames: { type: 'string', default: '250' }, smoke: { type: 'boolean', default: false } },
});
const N = values.smoke ? 15 : Number(values.frames);
const shapes = ['X', 'B', 'C', 'D', 'E', 'F', 'A', 'G', 'H'].map((v) => MOUTH_SHAPES[v]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const results = [];
console.log(`render benchmark: ${N} frames per case at 25 fps, CPU path (Skia + libyuv + libwebrtc VP8)`);
console.log(
  'avatar       size        render ms   i420 ms  onFrame ms  encode ms   total ms   share render/i420/onFrame/encode   % of a core at 25 fps   render CPU ms   JS CPU ms   enc CPU ms   repeated',
);
// the built-in vector avatars, a photo avatar made from the test portrait (bench/lib/photo-pack.mjs)
// and a synthetic video avatar (bench/lib/video-pack.mjs)
/** A sprite pack made from amara (as `avatars sprites-from-vector` would), in a temporary folder. */
async function spriteBenchPack() {
  const amara = readAvatarPacks([BUILTIN_AVATARS_DIR]).packs.find((p) => p.manifest.id === 'amara');
  const folder = mkdtempSync(join(tmpdir(), 'mp-bench-sprites-'));
  await spritePackFromVector(amara.manifest, folder);
  return loadAvatarPack(join(folder, 'amara-sprites'));
}

const packs = [
  ...readAvatarPacks([BUILTIN_AVATARS_DIR]).packs,
  await spriteBenchPack(),
  await photoBenchPack(),
  await videoBenchPack('video', { smoke: values.smoke }),
];
for (const { manifest, dir } of packs) {
  for (const [width, height] of [
    [512, 512],
    [1280, 720],
  ]) {
    for (const regions of [false, true]) {
      const r = createAvatarRenderer(manifest, { width, height }, dir);
      if (regions && !r.renderRegion) {
        r.close();
        continue;
      }
      const region = new I420Region({ width, height }, (a, b) => wrtc.nonstandard.rgbaToI420(a, b));
      let repeated = 0;
      // let the renderer's per-avatar caches warm, as a running engine's are (a video pack's 125 base
      // frames are scaled to a new output size one per timer turn)
      await sleep(manifest.render === 'video' ? 6000 : 500);
      const anim = createAnimator({ seed: 1 });
      const i420 = new Uint8Array((width * height * 3) / 2);
      const source = new wrtc.nonstandard.RTCVideoSource(
        process.env.BENCH_DENOISE === '1' ? undefined : { needsDenoising: false },
      );
      const track = source.createTrack();
      const { tx, rx } = await loopback(track);
      let render = 0;
      let conv = 0;
      let handoff = 0;
      let e0;
      let cpu0;
      const t0 = performance.now();
      for (let n = 0; n < N + 10; n++) {
        if (n === 10) {
          e0 = await encodeStats(tx);
          cpu0 = threadCpu();
        }
        const a = performance.now();
        const state = {
          mouth: shapes[Math.floor(n / 3) % shapes.length],
          motion: anim.next({ tMs: n * 40, speaking: true, emphasis: (n % 7) / 7 }),
          speaking: true,
        };
        if (r.renderI420) r.renderI420(state, i420);
        const changed = regions ? r.renderRegion(state) : undefined;
        if (regions && !changed && n >= 10) repeated++;
        const rgba = r.renderI420 || regions ? undefined : r.render(state);
        const b = performance.now();
        if (rgba) wrtc.nonstandard.rgbaToI420({ width, height, data: rgba }, { width, height, data: i420 });
        if (changed) region.convert(changed.region, changed.rgba, i420);
        const c = performance.now();
        source.onFrame({ width, height, data: i420 });
        const d = performance.now();
        if (n >= 10) {
          render += b - a;
          conv += c - b;
          handoff += d - c;
        }
        await sleep(Math.max(0, t0 + (n + 1) * 40 - performance.now()));
      }
      const cpu1 = threadCpu();
      await sleep(300);
      const e1 = await encodeStats(tx);
      const frames = e1.framesEncoded - e0.framesEncoded;
      const encodeMs = frames > 0 ? ((e1.totalEncodeTime - e0.totalEncodeTime) * 1000) / frames : NaN;
      track.stop();
      tx.close();
      rx.close();
      // render alone, with nothing streaming: the process's CPU time per frame (robust to other
      // processes sharing the cores, which stretch wall-clock figures)
      const anim2 = createAnimator({ seed: 2 });
      const c0 = process.cpuUsage();
      for (let n = 0; n < N; n++) {
        const m = shapes[Math.floor(n / 3) % shapes.length];
        const state = {
          mouth: { ...m, open: m.open + (n % 3) * 0.01 },
          motion: anim2.next({ tMs: n * 40, speaking: true, emphasis: (n % 7) / 7 }),
          speaking: true,
        };
        if (r.renderI420) r.renderI420(state, i420);
        else r.render(state);
        await new Promise((res) => setImmediate(res)); // Skia frees read-back buffers between turns
      }
      const c1 = process.cpuUsage(c0);
      r.close();
      const row = {
        avatar: regions ? `${manifest.id} rgn` : manifest.id,
        jsCpuMs: +((cpu1.main - cpu0.main) / N).toFixed(3),
        encoderCpuMs: +((cpu1.encoder - cpu0.encoder) / N).toFixed(3),
        repeated,
        width,
        height,
        renderMs: +(render / N).toFixed(3),
        renderCpuMs: +((c1.user + c1.system) / 1000 / N).toFixed(3),
        i420Ms: +(conv / N).toFixed(3),
        onFrameMs: +(handoff / N).toFixed(3),
        encodeMs: +encodeMs.toFixed(3),
        encodedWidth: e1.frameWidth,
        kbps: Math.round(((e1.bytesSent - e0.bytesSent) * 8) / ((N * 40) / 1000) / 1000),
      };
      row.totalMs = +(row.renderMs + row.i420Ms + row.onFrameMs + row.encodeMs).toFixed(3);
      row.share = [row.renderMs, row.i420Ms, row.onFrameMs, row.encodeMs].map((x) =>
        Math.round((x / row.totalMs) * 100),
      );
      row.corePercentAt25fps = +((row.totalMs * 25) / 10).toFixed(1);
      results.push(row);
      console.log(
        `${row.avatar.padEnd(12)} ${`${width}x${height}`.padEnd(10)} ${row.renderMs.toFixed(2).padStart(10)} ${row.i420Ms.toFixed(3).padStart(9)} ${row.onFrameMs.toFixed(3).padStart(11)} ${row.encodeMs.toFixed(2).padStart(10)} ${row.totalMs.toFixed(2).padStart(10)}   ${row.share
          .map((x) => `${x} %`)
          .join(' / ')
          .padStart(
            22,
          )}   ${row.corePercentAt25fps.toFixed(1).padStart(10)}   ${row.renderCpuMs.toFixed(2).padStart(12)}   ${row.jsCpuMs.toFixed(2).padStart(9)}   ${row.encoderCpuMs.toFixed(2).padStart(10)}   ${String(repeated).padStart(8)}`,
      );
    }
  }
}
console.log(
  '(render, i420 and onFrame (hand-off to libwebrtc) run on the JS thread; video renders I420 itself (renderI420: base-frame copy + mouth blend), so its i420 column is 0; encode is libwebrtc totalEncodeTime per frame on its encoder thread; render CPU ms: CPU time per frame of render alone, the mouth changing every frame; JS CPU ms and enc CPU ms: CPU time per frame of the JS thread (render, conversion, hand-off, the loopback peers) and of the encoder thread while streaming; repeated: frames sent again unchanged ("rgn" rows))',
);
// the viewer peer's liveness poll (rtc/viewer-peer.ts: one getStats() every 500 ms per viewer):
// the JS thread's CPU per call, against the same loop without it, on a peer streaming video
const getStatsJsCpuMs = await (async () => {
  const source = new wrtc.nonstandard.RTCVideoSource({ needsDenoising: false });
  const track = source.createTrack();
  const { tx, rx } = await loopback(track);
  const frame = { width: 512, height: 512, data: new Uint8Array((512 * 512 * 3) / 2) };
  const K = values.smoke ? 10 : 200;
  const loop = async (poll) => {
    const c0 = threadCpu().main;
    for (let k = 0; k < K; k++) {
      source.onFrame(frame);
      if (poll) await tx.getStats();
      await sleep(10);
    }
    return threadCpu().main - c0;
  };
  const without = await loop(false);
  const withPoll = await loop(true);
  track.stop();
  tx.close();
  rx.close();
  return +((withPoll - without) / K).toFixed(3);
})();
console.log(
  `viewer liveness poll (getStats): ${getStatsJsCpuMs} ms of JS-thread CPU per call; at one call per 500 ms per viewer, ${((getStatsJsCpuMs * 2) / 10).toFixed(2)} % of a core per session`,
);
console.log(JSON.stringify({ bench: 'render', frames: N, results, getStatsJsCpuMs }));
process.exit(0); // libwebrtc can crash at a natural exit
