/**
 * A video avatar's pixel work, directly in I420: scaling base frames to the output size (once,
 * at load) and blending mouth crops onto a base frame (per frame). A crop lives in canonical
 * coordinates (video-index.ts); `toOut` takes canonical coordinates to output pixels. Every output
 * pixel of the lower-face box's bounding rectangle is mapped back into the crop and sampled
 * bilinearly — luma at full resolution, U and V at half with the mask's chroma alpha — so nothing
 * outside that rectangle is read or written.
 */
import { applySimilarity, invertSimilarity, type I420View, type Similarity } from './i420.js';
import type { SeamMask } from './seam-mask.js';
import type { VideoBox as Box } from './video-index.js';

/** A rectangle of output pixels [x0, x1) × [y0, y1), even-aligned so it halves exactly for chroma. */
export interface PixelRect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The output rectangle the box covers under `toOut`, clamped to the frame (may be empty). */
export function outputRect(toOut: Similarity, box: Box, width: number, height: number): PixelRect {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [cx, cy] of [
    [box.x, box.y],
    [box.x + box.width, box.y],
    [box.x, box.y + box.height],
    [box.x + box.width, box.y + box.height],
  ] as const) {
    const [x, y] = applySimilarity(toOut, cx, cy);
    xs.push(x);
    ys.push(y);
  }
  const down = (v: number, max: number): number => Math.max(0, Math.min(max, 2 * Math.floor(v / 2)));
  const up = (v: number, max: number): number => Math.max(0, Math.min(max, 2 * Math.ceil(v / 2)));
  return {
    x0: down(Math.min(...xs), width),
    y0: down(Math.min(...ys), height),
    x1: up(Math.max(...xs), width),
    y1: up(Math.max(...ys), height),
  };
}

/** `src` scaled to cover `dst`, centred (a square frame into a wider output loses its top and bottom). */
export function scaleI420Cover(src: I420View, dst: I420View): void {
  const s = Math.max(dst.width / src.width, dst.height / src.height);
  const ox = (dst.width - src.width * s) / 2;
  const oy = (dst.height - src.height * s) / 2;
  const sw = src.width >> 1;
  const sh = src.height >> 1;
  const dw = dst.width >> 1;
  const dh = dst.height >> 1;
  resamplePlane(src.y, src.width, src.height, dst.y, dst.width, dst.height, s, ox, oy);
  resamplePlane(src.u, sw, sh, dst.u, dw, dh, s, ox / 2, oy / 2);
  resamplePlane(src.v, sw, sh, dst.v, dw, dh, s, ox / 2, oy / 2);
}

/** Per output column (or row): the source pixel left of (above) the sample and the weight of the next. */
function axis(
  n: number,
  srcN: number,
  s: number,
  o: number,
  at: number,
): { idx: Int32Array; frac: Float32Array } {
  const idx = new Int32Array(n);
  const frac = new Float32Array(n);
  for (let x = 0; x < n; x++) {
    const c = Math.max(0, Math.min(srcN - 1, (x + at - o) / s - 0.5));
    const i = Math.min(srcN - 2, Math.floor(c));
    idx[x] = i;
    frac[x] = c - i;
  }
  return { idx, frac };
}

/** Bilinear, with taps×taps samples a pixel when shrinking (so a smaller output does not alias). */
function resamplePlane(
  src: Uint8Array,
  sw: number,
  sh: number,
  dst: Uint8Array,
  dw: number,
  dh: number,
  s: number,
  ox: number,
  oy: number,
): void {
  const taps = Math.max(1, Math.ceil(1 / s - 1e-9));
  const out = new Uint8ClampedArray(dst.buffer, dst.byteOffset, dst.length);
  const sum = taps > 1 ? new Float32Array(dw * dh) : undefined;
  for (let ty = 0; ty < taps; ty++)
    for (let tx = 0; tx < taps; tx++) {
      const X = axis(dw, sw, s, ox, (tx + 0.5) / taps);
      const Y = axis(dh, sh, s, oy, (ty + 0.5) / taps);
      for (let y = 0; y < dh; y++) {
        const row = Y.idx[y]! * sw;
        const fy = Y.frac[y]!;
        for (let x = 0, o = y * dw; x < dw; x++, o++) {
          const i = row + X.idx[x]!;
          const fx = X.frac[x]!;
          const top = src[i]! + (src[i + 1]! - src[i]!) * fx;
          const value = top + (src[i + sw]! + (src[i + sw + 1]! - src[i + sw]!) * fx - top) * fy;
          if (sum) sum[o]! += value;
          else out[o] = value;
        }
      }
    }
  if (sum) for (let o = 0; o < sum.length; o++) out[o] = sum[o]! / (taps * taps);
}

/** A crop mix premultiplied by the seam mask: alpha × colour (0..65025) per box pixel, I420 layout. */
export interface Premultiplied {
  y: Uint16Array;
  u: Uint16Array;
  v: Uint16Array;
}

export function premultipliedFor(box: Box): Premultiplied {
  const c = (box.width >> 1) * (box.height >> 1);
  return { y: new Uint16Array(box.width * box.height), u: new Uint16Array(c), v: new Uint16Array(c) };
}

export interface CompositeJob {
  /** The output frame, holding the base frame. */
  out: I420View;
  /** Canonical coordinates → output pixels. */
  toOut: Similarity;
  /** The output rectangle to work in (outputRect of the same transform). */
  rect: PixelRect;
  box: Box;
  mask: SeamMask;
  /** The crops and their weights (wb 0: `b` is not read). */
  a: I420View;
  wa: number;
  b: I420View;
  wb: number;
  /** Added to the blended crop's Y, U and V (the colour match). */
  shift: readonly [number, number, number];
  /** 0..1, multiplies the mask. */
  fade: number;
  /** Scratch for the premultiplied mix (premultipliedFor(box)), overwritten. */
  mix: Premultiplied;
}

/**
 * Blends the weighted crops into `out` through the seam mask. The crops are mixed, shifted and
 * premultiplied by the mask once in crop space, so each output pixel samples two planes (mask
 * and premultiplied colour) — resampling with premultiplied alpha, which keeps the seam clean.
 */
export function compositeI420(job: CompositeJob): void {
  const { out, rect: r, box, mask, a, b, wa, wb, shift, mix } = job;
  premultiply(mix.y, mask.alpha, a.y, wa, b.y, wb, shift[0]);
  premultiply(mix.u, mask.alphaC, a.u, wa, b.u, wb, shift[1]);
  premultiply(mix.v, mask.alphaC, a.v, wa, b.v, wb, shift[2]);
  const inv = invertSimilarity(job.toOut);
  const cw = out.width >> 1;
  const bw = box.width >> 1;
  const bh = box.height >> 1;
  const common = { inv, boxX: box.x, boxY: box.y, fade: job.fade };
  blendPlane({
    ...common,
    dst: out.y,
    dstW: out.width,
    r,
    f: 1,
    alpha: mask.alpha,
    w: box.width,
    h: box.height,
    p: mix.y,
  });
  const rc = { x0: r.x0 >> 1, y0: r.y0 >> 1, x1: r.x1 >> 1, y1: r.y1 >> 1 };
  blendPlane({ ...common, dst: out.u, dstW: cw, r: rc, f: 2, alpha: mask.alphaC, w: bw, h: bh, p: mix.u });
  blendPlane({ ...common, dst: out.v, dstW: cw, r: rc, f: 2, alpha: mask.alphaC, w: bw, h: bh, p: mix.v });
}

function premultiply(
  dst: Uint16Array,
  alpha: Uint8Array,
  ca: Uint8Array,
  wa: number,
  cb: Uint8Array,
  wb: number,
  shift: number,
): void {
  for (let i = 0; i < dst.length; i++) {
    const m = alpha[i]!;
    if (m === 0) {
      dst[i] = 0;
      continue;
    }
    let c = ca[i]! * wa + shift;
    if (wb > 0) c += cb[i]! * wb;
    dst[i] = m * (c < 0 ? 0 : c > 255 ? 255 : c);
  }
}

interface PlaneJob {
  dst: Uint8Array;
  dstW: number;
  /** The rectangle in this plane's pixels. */
  r: PixelRect;
  /** Luma pixels per pixel of this plane (1 or 2). */
  f: number;
  inv: Similarity;
  boxX: number;
  boxY: number;
  /** The mask and the premultiplied mix at this plane's resolution, w × h. */
  alpha: Uint8Array;
  w: number;
  h: number;
  p: Uint16Array;
  fade: number;
}

function blendPlane(job: PlaneJob): void {
  const [ia, ib, itx, ity] = job.inv;
  const { alpha, p, w, f, dstW, r } = job;
  const out = new Uint8ClampedArray(job.dst.buffer, job.dst.byteOffset, job.dst.length);
  // out = base·(1 − k·α) + k·(α·c), with α and α·c sampled bilinearly, k the fade, α in 0..255
  const k = job.fade / 255;
  const maxU = w - 1;
  const maxV = job.h - 1;
  for (let y = r.y0; y < r.y1; y++) {
    // the crop-plane coordinates of this row's first pixel centre; one output pixel is (ia, ib)
    const lx = (r.x0 + 0.5) * f;
    const ly = (y + 0.5) * f;
    let u = (ia * lx - ib * ly + itx - job.boxX) / f - 0.5;
    let v = (ib * lx + ia * ly + ity - job.boxY) / f - 0.5;
    let o = y * dstW + r.x0;
    for (let x = r.x0; x < r.x1; x++, u += ia, v += ib, o++) {
      if (!(u >= 0 && v >= 0 && u < maxU && v < maxV)) continue;
      const iu = u | 0;
      const iv = v | 0;
      const i = iv * w + iu;
      const a00 = alpha[i]!;
      const a01 = alpha[i + 1]!;
      const a10 = alpha[i + w]!;
      const a11 = alpha[i + w + 1]!;
      if ((a00 | a01 | a10 | a11) === 0) continue;
      const fu = u - iu;
      const fv = v - iv;
      const top = a00 + (a01 - a00) * fu;
      const m = top + (a10 + (a11 - a10) * fu - top) * fv;
      const p00 = p[i]!;
      const p10 = p[i + w]!;
      const pTop = p00 + (p[i + 1]! - p00) * fu;
      const pc = pTop + (p10 + (p[i + w + 1]! - p10) * fu - pTop) * fv;
      const base = out[o]!;
      out[o] = base + (pc - base * m) * k;
    }
  }
}
