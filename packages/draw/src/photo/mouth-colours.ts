/**
 * The colours of a photo avatar's inner mouth, measured once from the photo: the cavity from the
 * lips' colour, the teeth from the skin's brightness and hue (the light falling on the face), the
 * tongue between the two, so the inner mouth sits in the photo's own light.
 */
import type { Image32 } from './mesh-warp.js';
import type { PhotoRig, Vec } from './photo-rig.js';

export interface MouthColours {
  cavity: [number, number, number];
  teeth: [number, number, number];
  tongue: [number, number, number];
}

function mean(img: Image32, points: readonly Vec[], radius: number): [number, number, number] {
  let r = 0;
  let g = 0;
  let b = 0;
  let n = 0;
  for (const [px, py] of points)
    for (let y = Math.round(py - radius); y <= Math.round(py + radius); y++)
      for (let x = Math.round(px - radius); x <= Math.round(px + radius); x++) {
        if (x < 0 || y < 0 || x >= img.width || y >= img.height) continue;
        const o = (y * img.width + x) * 4;
        r += img.px[o]!;
        g += img.px[o + 1]!;
        b += img.px[o + 2]!;
        n++;
      }
  return n ? [r / n, g / n, b / n] : [128, 128, 128];
}

/** Colours from the photo at rest (`img`, vertex positions `at` in its pixels). */
export function mouthColours(img: Image32, at: Float64Array, rig: PhotoRig): MouthColours {
  const p = (i: number): Vec => [at[i * 2]!, at[i * 2 + 1]!];
  const mid = (i: number, j: number): Vec => [
    (at[i * 2]! + at[j * 2]!) / 2,
    (at[i * 2 + 1]! + at[j * 2 + 1]!) / 2,
  ];
  const radius = Math.max(1, rig.mouthW * 0.02);
  const lips = mean(img, [mid(51, 62), mid(57, 66), mid(50, 61), mid(52, 63)], radius);
  const skin = mean(img, [mid(3, 31), mid(13, 35), p(33)], radius * 2);
  const luma = 0.299 * skin[0] + 0.587 * skin[1] + 0.114 * skin[2];
  const light = Math.min(1.1, Math.max(0.45, luma / 165));
  // the light's colour: the skin's hue, a quarter of the way
  const tint = (k: number): number => (Math.max(1, skin[k]!) / Math.max(1, luma)) ** 0.25;
  const clamp = (v: number): number => Math.max(0, Math.min(255, Math.round(v)));
  return {
    cavity: [clamp(lips[0] * 0.28 + 8), clamp(lips[1] * 0.15 + 4), clamp(lips[2] * 0.15 + 5)],
    teeth: [clamp(238 * light * tint(0)), clamp(232 * light * tint(1)), clamp(220 * light * tint(2))],
    tongue: [
      clamp((lips[0] * 0.6 + 190 * 0.4) * light),
      clamp((lips[1] * 0.6 + 90 * 0.4) * light),
      clamp((lips[2] * 0.6 + 95 * 0.4) * light),
    ],
  };
}
