/**
 * One upper lip on a real person's clip (testing/real-clip-pack.ts: a man with a beard talking to
 * the camera, laughing with his head tilted back for a moment; imported once and cached). Where a
 * closed mouth was laid onto a laughing or broadly smiling frame, that frame's own upper lip,
 * drawn up to the nose, stayed above the crop's: two lip lines and a seam across the cheeks at the
 * lip (docs/design.md §11 "Base frames"). Measured on the pixels: the band between the nose and the
 * upper lip the frame shows (its landmarks: the composite's), in its middle third, is no redder
 * than that band ever is in the clip's own closed mouths (the mouth library's crops).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { FlatLandmarks } from '@mouthpiece/draw';
import { realClipPack } from '../testing/real-clip-pack.js';
import { applySimilarity, i420Bytes, readVideoPack, type VideoPackData } from './pack.js';

let pack: VideoPackData;

beforeAll(async () => {
  pack = readVideoPack((await realClipPack()).dir);
}, 600_000);

/**
 * Mean V (redness) over the band from just under the nose base (landmark 33) to just above the
 * upper lip's top (50–52), between 50 and 52, in canonical coordinates; `v` reads a point's V.
 */
function bandRedness(L: FlatLandmarks, v: (x: number, y: number) => number): number {
  const x0 = L[100]!;
  const x1 = L[104]!;
  const y0 = L[67]! + 1;
  const y1 = Math.min(L[101]!, L[103]!, L[105]!) - 1;
  let s = 0;
  let n = 0;
  for (let y = y0; y <= y1; y += 0.5)
    for (let x = x0; x <= x1; x += 0.5) {
      s += v(x, y);
      n++;
    }
  return n > 0 ? s / n : 0;
}

describe('a mouth laid onto a real clip’s frames', () => {
  it('leaves one upper lip: no baked base frame is redder between nose and lip than the clip’s own closed mouths', () => {
    const { index, base, mouths } = pack;
    const { box } = index.library;
    const cropBytes = i420Bytes(box.width, box.height);
    const cropV = (c: number) => (x: number, y: number) => {
      const cx = Math.floor((x - box.x) / 2);
      const cy = Math.floor((y - box.y) / 2);
      return mouths[c * cropBytes + box.width * box.height * 1.25 + cy * (box.width >> 1) + cx]!;
    };
    const own: number[] = [];
    index.library.descriptors.forEach((d, c) => {
      if (d.open < 0.1) own.push(bandRedness(index.library.landmarks![c]!, cropV(c)));
    });
    expect(own.length).toBeGreaterThan(20);
    const most = Math.max(...own);
    const S = index.size;
    const frameBytes = i420Bytes(S, S);
    const redder: string[] = [];
    let baked = 0;
    for (let b = 0; b < index.base.frames; b++) {
      if (!index.base.baked?.[b]) continue;
      baked++;
      const t = index.base.toFrame[b]!;
      const v = (x: number, y: number): number => {
        const [fx, fy] = applySimilarity(t, x, y);
        return base[b * frameBytes + S * S * 1.25 + Math.floor(fy / 2) * (S >> 1) + Math.floor(fx / 2)]!;
      };
      const r = bandRedness(index.base.landmarks![b]!, v);
      if (r > most) redder.push(`${b} (clip frame ${index.base.source[b]}): ${(r - most).toFixed(1)}`);
    }
    console.log(
      `real clip: ${redder.length} of ${baked} baked base frames redder between nose and lip than any of its ${own.length} closed mouths; ${index.stats.lipUnderNose} frames kept out of the pool`,
    );
    expect(baked).toBeGreaterThan(100);
    expect(
      redder,
      'baked frames with a second upper lip (V levels above the most of a closed mouth)',
    ).toEqual([]);
  });
});
