/**
 * Triangle rasterisation for the photo renderer: each output pixel centre inside a destination
 * triangle is either sampled (bilinear) from the source image through the affine map that takes
 * the destination triangle onto its source triangle, or coloured by a shader (the inner mouth).
 */

export interface Image32 {
  /** RGBA bytes. */
  px: Uint8ClampedArray;
  width: number;
  height: number;
}

/** Calls `span(y, x0, x1)` for each row of pixel centres inside the triangle (x1 exclusive). */
function spans(
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  x2: number,
  y2: number,
  width: number,
  height: number,
  span: (y: number, xa: number, xb: number) => void,
): void {
  const area = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0);
  if (Math.abs(area) < 1e-6) return;
  const s = area > 0 ? 1 : -1;
  // edge i: a*x + b*y + c >= 0 inside
  const ea = [s * (y0 - y1), s * (y1 - y2), s * (y2 - y0)];
  const eb = [s * (x1 - x0), s * (x2 - x1), s * (x0 - x2)];
  const ec = [s * (x0 * y1 - x1 * y0), s * (x1 * y2 - x2 * y1), s * (x2 * y0 - x0 * y2)];
  const ya = Math.max(0, Math.ceil(Math.min(y0, y1, y2) - 0.5));
  const yb = Math.min(height - 1, Math.floor(Math.max(y0, y1, y2) - 0.5));
  const xmin = Math.max(0, Math.min(x0, x1, x2) - 1);
  const xmax = Math.min(width, Math.max(x0, x1, x2) + 1);
  for (let y = ya; y <= yb; y++) {
    const cy = y + 0.5;
    let lo = xmin;
    let hi = xmax;
    for (let e = 0; e < 3; e++) {
      const a = ea[e]!;
      const v = eb[e]! * cy + ec[e]!;
      if (a > 0) lo = Math.max(lo, -v / a);
      else if (a < 0) hi = Math.min(hi, -v / a);
      else if (v < 0) hi = -1;
    }
    const xa = Math.max(0, Math.ceil(lo - 0.5));
    const xb = Math.min(width, Math.floor(hi - 0.5) + 1);
    if (xb > xa) span(y, xa, xb);
  }
}

/**
 * Warps the source triangle `s` (in `src` pixels) onto the destination triangle `d` (in `out`
 * pixels). Coordinates are pixel-edge based: pixel (x, y) has its centre at (x + 0.5, y + 0.5).
 */
export function warpTriangle(out: Image32, d: ArrayLike<number>, src: Image32, s: ArrayLike<number>): void {
  const [dx0, dy0, dx1, dy1, dx2, dy2] = [d[0]!, d[1]!, d[2]!, d[3]!, d[4]!, d[5]!];
  const det = (dx1 - dx0) * (dy2 - dy0) - (dx2 - dx0) * (dy1 - dy0);
  if (Math.abs(det) < 1e-6) return;
  // affine map destination -> source: src = A * (dst - d0) + s0
  const ux = s[2]! - s[0]!;
  const uy = s[3]! - s[1]!;
  const vx = s[4]! - s[0]!;
  const vy = s[5]! - s[1]!;
  const i00 = (dy2 - dy0) / det;
  const i01 = -(dx2 - dx0) / det;
  const i10 = -(dy1 - dy0) / det;
  const i11 = (dx1 - dx0) / det;
  const a = ux * i00 + vx * i10;
  const b = ux * i01 + vx * i11;
  const c = uy * i00 + vy * i10;
  const e = uy * i01 + vy * i11;
  const sx0 = s[0]! - 0.5;
  const sy0 = s[1]! - 0.5;
  // whole pixels as 32-bit words (RGBA bytes, little-endian): one read per neighbour
  const sp = words(src);
  const sw = src.width;
  const maxX = src.width - 1.001;
  const maxY = src.height - 1.001;
  const op = words(out);
  const ow = out.width;
  // a source triangle well inside the image needs no clamping (sampled points stay inside it)
  const safe =
    Math.min(s[0]!, s[2]!, s[4]!) > 2 &&
    Math.min(s[1]!, s[3]!, s[5]!) > 2 &&
    Math.max(s[0]!, s[2]!, s[4]!) < src.width - 3 &&
    Math.max(s[1]!, s[3]!, s[5]!) < src.height - 3;
  spans(dx0, dy0, dx1, dy1, dx2, dy2, out.width, out.height, (y, xa, xb) => {
    const py = y + 0.5 - dy0;
    const px = xa + 0.5 - dx0;
    // source position of the pixel centre, in source pixel-centre coordinates, stepped along the row
    let fx = a * px + b * py + sx0;
    let fy = c * px + e * py + sy0;
    for (let x = xa, o = y * ow + xa; x < xb; x++, o++, fx += a, fy += c) {
      const cx = safe ? fx : fx < 0 ? 0 : fx > maxX ? maxX : fx;
      const cy = safe ? fy : fy < 0 ? 0 : fy > maxY ? maxY : fy;
      const ix = cx | 0;
      const iy = cy | 0;
      const tx = cx - ix;
      const ty = cy - iy;
      const i = iy * sw + ix;
      const p00 = sp[i]!;
      const p10 = sp[i + 1]!;
      const p01 = sp[i + sw]!;
      const p11 = sp[i + sw + 1]!;
      const w00 = (1 - tx) * (1 - ty);
      const w10 = tx * (1 - ty);
      const w01 = (1 - tx) * ty;
      const w11 = tx * ty;
      const r = (p00 & 255) * w00 + (p10 & 255) * w10 + (p01 & 255) * w01 + (p11 & 255) * w11;
      const g =
        ((p00 >>> 8) & 255) * w00 +
        ((p10 >>> 8) & 255) * w10 +
        ((p01 >>> 8) & 255) * w01 +
        ((p11 >>> 8) & 255) * w11;
      const bl =
        ((p00 >>> 16) & 255) * w00 +
        ((p10 >>> 16) & 255) * w10 +
        ((p01 >>> 16) & 255) * w01 +
        ((p11 >>> 16) & 255) * w11;
      op[o] = 0xff000000 | ((bl + 0.5) << 16) | ((g + 0.5) << 8) | (r + 0.5);
    }
  });
}

const views = new WeakMap<Uint8ClampedArray, Uint32Array>();

/** The image's pixels as 32-bit words (cached per pixel buffer). */
function words(img: Image32): Uint32Array {
  let w = views.get(img.px);
  if (!w) {
    w = new Uint32Array(img.px.buffer, img.px.byteOffset, img.px.byteLength >> 2);
    views.set(img.px, w);
  }
  return w;
}

/** Colours each pixel centre inside the triangle `d` with `shade(x, y, offset)`. */
export function fillTriangle(
  out: Image32,
  d: ArrayLike<number>,
  shade: (x: number, y: number, offset: number) => void,
): void {
  spans(d[0]!, d[1]!, d[2]!, d[3]!, d[4]!, d[5]!, out.width, out.height, (y, xa, xb) => {
    for (let x = xa, o = (y * out.width + xa) * 4; x < xb; x++, o += 4) shade(x + 0.5, y + 0.5, o);
  });
}
