/**
 * The video renderer's pixel work, directly in I420: scaling base frames to the output size (once,
 * at load) and blending mouth crops onto a base frame (per frame). A crop lives in canonical
 * coordinates (video/pack.ts); `toOut` takes canonical coordinates to output pixels. Every output
 * pixel of the lower-face box's bounding rectangle is mapped back into the crop and sampled
 * bilinearly — luma at full resolution, U and V at half with the mask's chroma alpha — so nothing
 * outside that rectangle is read or written.
 */
import type { SeamMask } from '../video/mask.js';
import {
  applySimilarity,
  invertSimilarity,
  type I420View,
  type Similarity,
  type VideoIndex,
} from '../video/pack.js';

type Box = VideoIndex['library']['box'];

/** A rectangle of output pixels [x0, x1) × [y0, y1), even-aligned so it halves exactly for chroma. */
export interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The output rectangle the box covers under `toOut`, clamped to the frame (may be empty). */
export function outputRect(toOut: Similarity, box: Box, width: number, height: number): Rect {
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
  const at = (x: number, y: number): number => {
    const cx = Math.max(0, Math.min(sw - 1, x));
    const cy = Math.max(0, Math.min(sh - 1, y));
    const ix = Math.min(sw - 2, Math.floor(cx));
    const iy = Math.min(sh - 2, Math.floor(cy));
    const fx = cx - ix;
    const fy = cy - iy;
    const i = iy * sw + ix;
    const top = src[i]! + (src[i + 1]! - src[i]!) * fx;
    const bottom = src[i + sw]! + (src[i + sw + 1]! - src[i + sw]!) * fx;
    return top + (bottom - top) * fy;
  };
  for (let y = 0; y < dh; y++)
    for (let x = 0; x < dw; x++) {
      let sum = 0;
      for (let ty = 0; ty < taps; ty++)
        for (let tx = 0; tx < taps; tx++)
          sum += at((x + (tx + 0.5) / taps - ox) / s - 0.5, (y + (ty + 0.5) / taps - oy) / s - 0.5);
      out[y * dw + x] = sum / (taps * taps);
    }
}

export interface CompositeJob {
  /** The output frame, holding the base frame. */
  out: I420View;
  /** Canonical coordinates → output pixels. */
  toOut: Similarity;
  /** The output rectangle to work in (outputRect of the same transform). */
  rect: Rect;
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
}

/** Blends the weighted crops into `out` through the seam mask. */
export function compositeI420(job: CompositeJob): void {
  const { out, rect: r, box, mask, a, b } = job;
  const inv = invertSimilarity(job.toOut);
  const cw = out.width >> 1;
  const bw = box.width >> 1;
  const bh = box.height >> 1;
  const common = { inv, boxX: box.x, boxY: box.y, wa: job.wa, wb: job.wb, fade: job.fade };
  blendPlane({
    ...common,
    dst: out.y,
    dstW: out.width,
    r,
    f: 1,
    alpha: mask.alpha,
    w: box.width,
    h: box.height,
    ca: a.y,
    cb: b.y,
    shift: job.shift[0],
  });
  const rc = { x0: r.x0 >> 1, y0: r.y0 >> 1, x1: r.x1 >> 1, y1: r.y1 >> 1 };
  blendPlane({
    ...common,
    dst: out.u,
    dstW: cw,
    r: rc,
    f: 2,
    alpha: mask.alphaC,
    w: bw,
    h: bh,
    ca: a.u,
    cb: b.u,
    shift: job.shift[1],
  });
  blendPlane({
    ...common,
    dst: out.v,
    dstW: cw,
    r: rc,
    f: 2,
    alpha: mask.alphaC,
    w: bw,
    h: bh,
    ca: a.v,
    cb: b.v,
    shift: job.shift[2],
  });
}

interface PlaneJob {
  dst: Uint8Array;
  dstW: number;
  /** The rectangle in this plane's pixels. */
  r: Rect;
  /** Luma pixels per pixel of this plane (1 or 2). */
  f: number;
  inv: Similarity;
  boxX: number;
  boxY: number;
  /** The mask and the crops at this plane's resolution, w × h. */
  alpha: Uint8Array;
  w: number;
  h: number;
  ca: Uint8Array;
  wa: number;
  cb: Uint8Array;
  wb: number;
  shift: number;
  fade: number;
}

function blendPlane(p: PlaneJob): void {
  const [ia, ib, itx, ity] = p.inv;
  const { alpha, ca, cb, wa, wb, w, f, dstW, shift, r } = p;
  const out = new Uint8ClampedArray(p.dst.buffer, p.dst.byteOffset, p.dst.length);
  const k = p.fade / 255;
  const maxU = w - 1;
  const maxV = p.h - 1;
  for (let y = r.y0; y < r.y1; y++) {
    // the crop-plane coordinates of this row's first pixel centre; one output pixel is (ia, ib)
    const lx = (r.x0 + 0.5) * f;
    const ly = (y + 0.5) * f;
    let u = (ia * lx - ib * ly + itx - p.boxX) / f - 0.5;
    let v = (ib * lx + ia * ly + ity - p.boxY) / f - 0.5;
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
      const w00 = (1 - fu) * (1 - fv);
      const w01 = fu * (1 - fv);
      const w10 = (1 - fu) * fv;
      const w11 = fu * fv;
      const m = (a00 * w00 + a01 * w01 + a10 * w10 + a11 * w11) * k;
      let c = (ca[i]! * w00 + ca[i + 1]! * w01 + ca[i + w]! * w10 + ca[i + w + 1]! * w11) * wa;
      if (wb > 0) c += (cb[i]! * w00 + cb[i + 1]! * w01 + cb[i + w]! * w10 + cb[i + w + 1]! * w11) * wb;
      const base = out[o]!;
      out[o] = base + (c + shift - base) * m;
    }
  }
}
