/**
 * The inner mouth of a photo avatar, drawn where the lips part: a dark cavity, the upper teeth
 * under the upper lip and the tongue above the lower one. Its colours come from the photo (the
 * lips' colour, the skin's brightness), so it sits in the photo's light.
 */
import type { MouthParams } from '../face-state.js';
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
  const clamp = (v: number): number => Math.max(0, Math.min(255, Math.round(v)));
  return {
    cavity: [clamp(lips[0] * 0.22 + 8), clamp(lips[1] * 0.14 + 4), clamp(lips[2] * 0.14 + 6)],
    teeth: [clamp(236 * light), clamp(230 * light), clamp(218 * light)],
    tongue: [
      clamp((lips[0] * 0.6 + 190 * 0.4) * light),
      clamp((lips[1] * 0.6 + 90 * 0.4) * light),
      clamp((lips[2] * 0.6 + 95 * 0.4) * light),
    ],
  };
}

/** Where teeth meet, as fractions of the half mouth width from the centre. */
const TOOTH_EDGES = [0, 0.26, 0.48];

/**
 * A shader for the cavity triangles of one frame: `pos` holds the frame's vertex positions, `r`
 * and `u` the face's axes in the frame (rotated with the head), `mouthW` the mouth width in pixels.
 */
export function innerMouthShader(
  out: Image32,
  pos: Float64Array,
  rig: PhotoRig,
  r: Vec,
  u: Vec,
  mouthW: number,
  mouth: MouthParams,
  colours: MouthColours,
): (x: number, y: number, o: number) => void {
  const [c0, c1] = [rig.innerUpper[0]!, rig.innerUpper[4]!];
  const ox = (pos[c0 * 2]! + pos[c1 * 2]!) / 2;
  const oy = (pos[c0 * 2 + 1]! + pos[c1 * 2 + 1]!) / 2;
  const toLocal = (i: number): Vec => {
    const x = pos[i * 2]! - ox;
    const y = pos[i * 2 + 1]! - oy;
    return [x * r[0] + y * r[1], x * u[0] + y * u[1]];
  };
  const upper = rig.innerUpper.map(toLocal);
  const lower = rig.innerLower.map(toLocal);
  const at = (line: readonly Vec[], s: number): number => {
    if (s <= line[0]![0]) return line[0]![1];
    for (let k = 1; k < line.length; k++) {
      const [s0, t0] = line[k - 1]!;
      const [s1, t1] = line[k]!;
      if (s <= s1) return s1 > s0 ? t0 + ((s - s0) / (s1 - s0)) * (t1 - t0) : t1;
    }
    return line[line.length - 1]![1];
  };
  const half = Math.max(1, mouthW / 2);
  const teethH = mouthW * 0.16 * Math.max(mouth.teeth, mouth.lipBite);
  const tongueK = 0.25 + 0.4 * mouth.tongue;
  const px = out.px;
  return (x, y, o) => {
    const lx = x - ox;
    const ly = y - oy;
    const s = lx * r[0] + ly * r[1];
    const t = lx * u[0] + ly * u[1];
    const top = at(upper, s);
    const gap = Math.max(1, at(lower, s) - top);
    const depth = t - top;
    const side = Math.min(1, (s / half) ** 2);
    let c: readonly number[];
    let k: number;
    if (depth < teethH) {
      c = colours.teeth;
      // gum shadow under the lip, darker towards the corners and at the biting edge
      k = (0.72 + 0.28 * Math.min(1, depth / Math.max(1, teethH * 0.35))) * (1 - 0.5 * side);
      if (teethH - depth < 1.2) k *= 0.8;
      // the gaps between teeth: the centre line and narrowing teeth towards the corners
      const u = Math.abs(s) / half;
      for (const edge of TOOTH_EDGES) if (Math.abs(u - edge) * half < 0.5) k *= 0.88;
    } else if (depth > gap * (1 - tongueK)) {
      c = colours.tongue;
      k =
        (0.7 + 0.3 * Math.min(1, (depth - gap * (1 - tongueK)) / Math.max(1, gap * 0.15))) *
        (1 - 0.45 * side);
    } else {
      c = colours.cavity;
      k = 1 - 0.4 * side;
    }
    px[o] = c[0]! * k;
    px[o + 1] = c[1]! * k;
    px[o + 2] = c[2]! * k;
  };
}
