// A synthetic video avatar pack for benchmarks (packages/engine/src/testing/synthetic-video-pack.ts):
// 512 px frames, a 5 s idle loop with a gentle sway (sub-pixel, slightly rotated and scaled, so the
// crop is resampled as a real pack's is) and a 300-crop mouth library in runs of consecutive
// source frames, made once per run into a temporary folder.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAvatarPack } from '../../packages/engine/dist/avatar/catalog.js';
import { writeSyntheticVideoPack } from '../../packages/engine/dist/testing/synthetic-video-pack.js';

export async function videoBenchPack(id = 'video', { smoke = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mp-bench-video-'));
  const crops = smoke ? 40 : 300;
  const descriptors = Array.from({ length: crops }, (_, k) => {
    const p = k * 0.37;
    return {
      open: 0.5 + 0.5 * Math.sin(p),
      width: 0.45 + 0.2 * Math.sin(p * 0.7),
      round: 0.3 + 0.3 * Math.sin(p * 0.3),
      teeth: 0.4 + 0.3 * Math.cos(p),
    };
  });
  const size = 512;
  await writeSyntheticVideoPack(dir, {
    id,
    size,
    baseFrames: smoke ? 10 : 125,
    descriptors,
    source: descriptors.map((_, k) => k + 10 * Math.floor(k / 25)), // runs of 25 frames
    toFrame: (i) => {
      const s = 1 + 0.01 * Math.sin(i * 0.1);
      const a = 0.02 * Math.sin(i * 0.13);
      const c = size / 2;
      const [ca, sa] = [s * Math.cos(a), s * Math.sin(a)];
      // about the frame's centre, plus a sway
      return [
        ca,
        sa,
        c - ca * c + sa * c + 3 * Math.sin(i * 0.21),
        c - sa * c - ca * c + 2 * Math.sin(i * 0.17),
      ];
    },
  });
  return loadAvatarPack(join(dir, id));
}
