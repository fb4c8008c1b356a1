// The measures of bench:video-avatar: every frame (real, or made by a renderer) is aligned to the
// video pack's canonical frame by its own tracked landmarks, and its canonical lower-face box is
// cut out (the same similarity fit on the stable landmarks and the same crop the import uses); then
// SSIM and mean absolute difference of the box's luma, and the landmark mouth opening over time.
import { createCanvas, ImageData } from '@napi-rs/canvas';
import { writeFile } from 'node:fs/promises';
import { i420ToRgba } from '../../packages/draw/dist/index.js';
import { detectFacesSsd, landmarksIn, trackingBox } from '../../packages/engine/dist/video/face-tracker.js';
import { measureMouth } from '../../packages/engine/dist/video/mouth-measure.js';
import { STABLE_LANDMARKS, fitSimilarity } from '../../packages/engine/dist/video/pack.js';
import { extractCrop } from '../../packages/engine/dist/video/pixels.js';

/** RGBA (a renderer's frame) as RGB, what the tracker and the crop read. */
export function rgbOf(rgba) {
  const out = new Uint8Array((rgba.length / 4) * 3);
  for (let i = 0, o = 0; i < rgba.length; i += 4, o += 3) {
    out[o] = rgba[i];
    out[o + 1] = rgba[i + 1];
    out[o + 2] = rgba[i + 2];
  }
  return out;
}

/**
 * Tracks one sequence of frames (size×size RGB, in order): the face is found once (the SSD
 * detector), then followed frame to frame by the landmark net, as the import tracks (without its
 * smoothing, the same for every sequence). Answers each frame's 68 landmarks.
 */
export function createTracker(size) {
  let previous;
  return async (rgb) => {
    const frame = { rgb, width: size, height: size };
    if (!previous) {
      const [face] = await detectFacesSsd(frame);
      if (!face) throw new Error('no face found in the first frame of a sequence');
      previous = await landmarksIn(frame, trackingBox(face.landmarks));
    }
    previous = await landmarksIn(frame, trackingBox(previous));
    return previous;
  };
}

/**
 * A frame aligned to the pack's canonical frame by its landmarks (the similarity fitted on the
 * stable ones, as the import fits it): its lower-face crop (I420, the pack's box), the crop's luma
 * plane, and the landmark mouth opening (inner-lip gap over the eyes' distance).
 */
export function alignFrame(index, rgb, size, lm) {
  const box = index.library.box;
  const toFrame = fitSimilarity(
    STABLE_LANDMARKS.map((k) => index.canonical.landmarks[k]),
    STABLE_LANDMARKS.map((k) => lm[k]),
  );
  const crop = extractCrop(rgb, size, size, toFrame, box);
  return {
    crop,
    y: crop.subarray(0, box.width * box.height),
    open: measureMouth(lm, toFrame, undefined, box, 0).gap,
    landmarks: lm,
  };
}

/** Summed-area table of f(a[i], b[i]) over a w×h plane, (w+1)×(h+1). */
function integral(w, h, f) {
  const s = new Float64Array((w + 1) * (h + 1));
  for (let y = 0; y < h; y++) {
    let row = 0;
    for (let x = 0; x < w; x++) {
      row += f(y * w + x);
      s[(y + 1) * (w + 1) + x + 1] = s[y * (w + 1) + x + 1] + row;
    }
  }
  return s;
}

/** SSIM window side (scikit-image's default: uniform 7×7) and Wang et al.'s constants for 8-bit. */
export const SSIM_WINDOW = 7;
const C1 = (0.01 * 255) ** 2;
const C2 = (0.03 * 255) ** 2;

/**
 * Mean SSIM (Wang, Bovik, Sheikh & Simoncelli 2004) of two w×h 8-bit planes over every 7×7 window
 * inside them, with uniform window weights and sample (n − 1) variances, as scikit-image computes
 * structural_similarity(a, b, data_range=255) but without its border windows. With `inside` (a w×h
 * mask), only the windows whose centre pixel is inside count.
 */
export function ssim(a, b, w, h, win = SSIM_WINDOW, inside = undefined) {
  const sa = integral(w, h, (i) => a[i]);
  const sb = integral(w, h, (i) => b[i]);
  const saa = integral(w, h, (i) => a[i] * a[i]);
  const sbb = integral(w, h, (i) => b[i] * b[i]);
  const sab = integral(w, h, (i) => a[i] * b[i]);
  const n = win * win;
  const W = w + 1;
  const box = (s, x, y) =>
    s[(y + win) * W + x + win] - s[y * W + x + win] - s[(y + win) * W + x] + s[y * W + x];
  let total = 0;
  let count = 0;
  for (let y = 0; y + win <= h; y++)
    for (let x = 0; x + win <= w; x++) {
      if (inside && !inside[(y + (win >> 1)) * w + x + (win >> 1)]) continue;
      const ma = box(sa, x, y) / n;
      const mb = box(sb, x, y) / n;
      const va = (box(saa, x, y) - n * ma * ma) / (n - 1);
      const vb = (box(sbb, x, y) - n * mb * mb) / (n - 1);
      const cov = (box(sab, x, y) - n * ma * mb) / (n - 1);
      total += ((2 * ma * mb + C1) * (2 * cov + C2)) / ((ma * ma + mb * mb + C1) * (va + vb + C2));
      count++;
    }
  return count ? total / count : NaN;
}

/** Mean absolute difference of two planes (0–255). */
export function mad(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i] - b[i]);
  return s / a.length;
}

/** Pearson correlation of two series (NaN when either is constant). */
export function pearson(a, b) {
  const n = Math.min(a.length, b.length);
  if (n < 2) return NaN;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i];
    mb += b[i];
  }
  ma /= n;
  mb /= n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) ** 2;
    sbb += (b[i] - mb) ** 2;
  }
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : NaN;
}

/**
 * A method's figures against the real frames: generated frame k is compared with real frame
 * k + shift (shift 1 with the real frames themselves: the ceiling row), over the frames both have.
 */
export function score(real, made, box, shift = 0, mask = undefined) {
  let s = 0;
  let d = 0;
  const split = { in: 0, out: 0, nIn: 0, nOut: 0 };
  const openReal = [];
  const openMade = [];
  const n = Math.min(made.length, real.length - shift);
  for (let k = 0; k < n; k++) {
    const r = real[k + shift];
    const m = made[k];
    s += ssim(m.y, r.y, box.width, box.height);
    d += mad(m.y, r.y);
    if (mask)
      for (let i = 0; i < m.y.length; i++) {
        const e = Math.abs(m.y[i] - r.y[i]);
        if (mask.alpha[i] >= 128) {
          split.in += e;
          split.nIn++;
        } else {
          split.out += e;
          split.nOut++;
        }
      }
    openReal.push(r.open);
    openMade.push(m.open);
  }
  return {
    ssim: s / n,
    mad: d / n,
    madInside: split.nIn ? split.in / split.nIn : NaN,
    madOutside: split.nOut ? split.out / split.nOut : NaN,
    openingR: pearson(openMade, openReal),
    frames: n,
  };
}

/**
 * A contact sheet of lower faces, one row per chosen frame: real | video | photo side by side
 * (colour, canonical box), as PNG. For looking at, never for committing.
 */
export async function writeSheet(file, columns, box, rows) {
  const gap = 4;
  const width = columns.length * box.width + (columns.length - 1) * gap;
  const height = rows.length * box.height + (rows.length - 1) * gap;
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#000';
  ctx.fillRect(0, 0, width, height);
  const rgba = new Uint8ClampedArray(box.width * box.height * 4);
  rows.forEach((k, r) => {
    columns.forEach((frames, c) => {
      const f = frames[k];
      if (!f) return;
      i420ToRgba(f.crop, box.width, box.height, rgba);
      ctx.putImageData(
        new ImageData(rgba, box.width, box.height),
        c * (box.width + gap),
        r * (box.height + gap),
      );
    });
  });
  await writeFile(file, await canvas.encode('png'));
}
