// Per-frame cost of the CPU render path for each built-in avatar: Skia drawing + read-back, and
// RGBA → I420 (libyuv via wrtc), at 512×512 and 1280×720. (VP8 encoding runs on libwebrtc's
// threads and is measured by bench/stream as process CPU.) Yields between frames, as the engine
// does (Skia read-back buffers are freed only when the event loop turns).
//   npm run bench:render [-- --frames 300] [--smoke]
import { parseArgs } from 'node:util';
import wrtc from '@roamhq/wrtc';
import { BUILTIN_AVATARS_DIR, readAvatarPacks } from '../../packages/engine/dist/avatar/catalog.js';
import { createAnimator } from '../../packages/engine/dist/animation/animator.js';
import { MOUTH_SHAPES } from '../../packages/engine/dist/lipsync/mouth-shapes.js';
import { createRenderer } from '../../packages/engine/dist/render/renderer.js';

const { values } = parseArgs({
  options: { frames: { type: 'string', default: '300' }, smoke: { type: 'boolean', default: false } },
});
const N = values.smoke ? 10 : Number(values.frames);
const shapes = ['X', 'B', 'C', 'D', 'E', 'F', 'A', 'G', 'H'].map((v) => MOUTH_SHAPES[v]);
const results = [];
console.log(`render benchmark: ${N} frames per case, CPU path (Skia + libyuv)`);
console.log('avatar   size        render ms   i420 ms   total ms   % of a core at 25 fps');
for (const { manifest } of readAvatarPacks([BUILTIN_AVATARS_DIR]).packs) {
  for (const [width, height] of [
    [512, 512],
    [1280, 720],
  ]) {
    const r = createRenderer(manifest, { width, height });
    const anim = createAnimator({ seed: 1 });
    const i420 = new Uint8Array((width * height * 3) / 2);
    let render = 0;
    let conv = 0;
    for (let n = 0; n < N + 5; n++) {
      const t0 = performance.now();
      const rgba = r.render({
        mouth: shapes[n % shapes.length],
        motion: anim.next({ tMs: n * 40, speaking: true, emphasis: (n % 7) / 7 }),
      });
      const t1 = performance.now();
      wrtc.nonstandard.rgbaToI420({ width, height, data: rgba }, { width, height, data: i420 });
      const t2 = performance.now();
      if (n >= 5) {
        render += t1 - t0;
        conv += t2 - t1;
      }
      await new Promise((res) => setImmediate(res));
    }
    r.close();
    const row = {
      avatar: manifest.id,
      width,
      height,
      renderMs: +(render / N).toFixed(3),
      i420Ms: +(conv / N).toFixed(3),
    };
    row.totalMs = +(row.renderMs + row.i420Ms).toFixed(3);
    row.corePercentAt25fps = +((row.totalMs * 25) / 10).toFixed(1);
    results.push(row);
    console.log(
      `${row.avatar.padEnd(8)} ${`${width}x${height}`.padEnd(10)} ${row.renderMs.toFixed(2).padStart(10)} ${row.i420Ms.toFixed(3).padStart(9)} ${row.totalMs.toFixed(2).padStart(10)} ${row.corePercentAt25fps.toFixed(1).padStart(10)}`,
    );
  }
}
console.log(JSON.stringify({ bench: 'render', frames: N, results }));
process.exit(0); // libwebrtc can crash at a natural exit
