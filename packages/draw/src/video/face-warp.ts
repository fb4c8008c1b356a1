/**
 * One I420 plane of a video avatar's face composite (face-composite.ts): every triangle of the
 * lower-face mesh (face-mesh.ts) is scanned in output pixels; inside it the base frame is
 * resampled piecewise-affinely from where the base has that point (its chin moved to the
 * crop's), and where the blend weight is above 0 the crop is resampled from where *it* has that
 * point, shifted by the seam's offset, and laid over the base. Every attribute is affine inside a
 * triangle, so a pixel costs a few additions and one or two bilinear samples. Pixels outside
 * every triangle that moves or blends are never written.
 */

/** Per-vertex attributes of one plane, in that plane's pixels (flat x, y pairs where two). */
export interface PlaneVertices {
  /** Where the vertex shows in the output. */
  pos: Float32Array;
  /** Where the base frame has it. */
  base: Float32Array;
  /** Where crop a (and b) have it, in crop pixels. */
  a: Float32Array;
  b: Float32Array;
  /** Blend weight 0..1 (occlusion and fade included). */
  alpha: Float32Array;
  /** The seam's offset added to the crop's value. */
  offset: Float32Array;
}

export interface PlaneImages {
  /** The output plane (holding the base frame) and its size. */
  dst: Uint8Array;
  width: number;
  height: number;
  /** A copy of the output plane's rectangle [x0, x0 + w) × [y0, y0 + h) before any write. */
  copy: Uint8Array;
  x0: number;
  y0: number;
  w: number;
  h: number;
  /** The crops' planes (cw × ch) and a's weight (b is read only when wa < 1). */
  cropA: Uint8Array;
  cropB: Uint8Array;
  cw: number;
  ch: number;
  wa: number;
}

/** Bilinear sample at a continuous position (pixel centres at +0.5), clamped to the plane. */
function sample(p: Uint8Array, w: number, h: number, fx: number, fy: number): number {
  let x = fx - 0.5;
  let y = fy - 0.5;
  if (x < 0) x = 0;
  else if (x > w - 1.001) x = w - 1.001;
  if (y < 0) y = 0;
  else if (y > h - 1.001) y = h - 1.001;
  const x0 = x | 0;
  const y0 = y | 0;
  const ax = x - x0;
  const i = y0 * w + x0;
  const top = p[i]! + (p[i + 1]! - p[i]!) * ax;
  const bottom = p[i + w]! + (p[i + w + 1]! - p[i + w]!) * ax;
  return top + (bottom - top) * (y - y0);
}

/** d(attribute)/dx and /dy over a triangle, from its three values (det: the triangle's 2× area). */
interface Grad {
  x: number;
  y: number;
}

export function warpPlane(
  img: PlaneImages,
  v: PlaneVertices,
  triangles: Uint16Array,
  moves: Uint8Array,
): void {
  for (let t = 0; t < triangles.length; t += 3) {
    const i0 = triangles[t]!;
    const i1 = triangles[t + 1]!;
    const i2 = triangles[t + 2]!;
    const blends = v.alpha[i0]! > 0 || v.alpha[i1]! > 0 || v.alpha[i2]! > 0;
    const moved = moves[t / 3] === 1;
    if (blends || moved) warpTriangle(img, v, i0, i1, i2, blends, moved);
  }
}

function warpTriangle(
  img: PlaneImages,
  v: PlaneVertices,
  i0: number,
  i1: number,
  i2: number,
  blends: boolean,
  moved: boolean,
): void {
  const { pos } = v;
  const x0 = pos[2 * i0]!;
  const y0 = pos[2 * i0 + 1]!;
  const x1 = pos[2 * i1]!;
  const y1 = pos[2 * i1 + 1]!;
  const x2 = pos[2 * i2]!;
  const y2 = pos[2 * i2 + 1]!;
  const det = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
  if (Math.abs(det) < 1e-6) return;
  const grad = (a0: number, a1: number, a2: number): Grad => ({
    x: ((a1 - a0) * (y2 - y0) - (a2 - a0) * (y1 - y0)) / det,
    y: ((a2 - a0) * (x1 - x0) - (a1 - a0) * (x2 - x0)) / det,
  });
  const at = (arr: Float32Array, k: number): [number, number, number] => [
    arr[k === 0 ? 2 * i0 : k === 1 ? 2 * i0 + 1 : i0]!,
    arr[k === 0 ? 2 * i1 : k === 1 ? 2 * i1 + 1 : i1]!,
    arr[k === 0 ? 2 * i2 : k === 1 ? 2 * i2 + 1 : i2]!,
  ];
  // each attribute: its value at vertex 0 and its gradient
  const attr = (arr: Float32Array, k: number): { v0: number; g: Grad } => {
    const [a0, a1, a2] = at(arr, k);
    return { v0: a0, g: grad(a0, a1, a2) };
  };
  const bx = attr(v.base, 0);
  const by = attr(v.base, 1);
  const ax = attr(v.a, 0);
  const ay = attr(v.a, 1);
  const cx = attr(v.b, 0);
  const cy = attr(v.b, 1);
  const al = attr(v.alpha, 2);
  const of = attr(v.offset, 2);
  const { dst, width, height, copy, w, h, cropA, cropB, cw, ch, wa } = img;
  const wb = 1 - wa;
  const readB = wb > 1e-3;
  const yStart = Math.max(0, Math.ceil(Math.min(y0, y1, y2) - 0.5));
  const yEnd = Math.min(height - 1, Math.floor(Math.max(y0, y1, y2) - 0.5));
  const xs = [x0, x1, x2];
  const ys = [y0, y1, y2];
  for (let y = yStart; y <= yEnd; y++) {
    const yc = y + 0.5;
    let xl = Infinity;
    let xr = -Infinity;
    for (let e = 0; e < 3; e++) {
      const ya = ys[e]!;
      const yb = ys[(e + 1) % 3]!;
      if ((yc < ya && yc < yb) || (yc > ya && yc > yb)) continue;
      const xa = xs[e]!;
      const xb = xs[(e + 1) % 3]!;
      const x = ya === yb ? Math.min(xa, xb) : xa + ((yc - ya) / (yb - ya)) * (xb - xa);
      const x2e = ya === yb ? Math.max(xa, xb) : x;
      if (x < xl) xl = x;
      if (x2e > xr) xr = x2e;
    }
    const xStart = Math.max(0, Math.ceil(xl - 0.5 - 1e-4));
    const xEnd = Math.min(width - 1, Math.floor(xr - 0.5 + 1e-4));
    if (xStart > xEnd) continue;
    const dx = xStart + 0.5 - x0;
    const dy = yc - y0;
    let sbx = bx.v0 + bx.g.x * dx + bx.g.y * dy - img.x0;
    let sby = by.v0 + by.g.x * dx + by.g.y * dy - img.y0;
    let sax = ax.v0 + ax.g.x * dx + ax.g.y * dy;
    let say = ay.v0 + ay.g.x * dx + ay.g.y * dy;
    let scx = cx.v0 + cx.g.x * dx + cx.g.y * dy;
    let scy = cy.v0 + cy.g.x * dx + cy.g.y * dy;
    let alpha = al.v0 + al.g.x * dx + al.g.y * dy;
    let off = of.v0 + of.g.x * dx + of.g.y * dy;
    let o = y * width + xStart;
    const own = (y - img.y0) * w - img.x0;
    for (let x = xStart; x <= xEnd; x++, o++) {
      const m = !blends || alpha <= 0 ? 0 : alpha >= 1 ? 1 : alpha * alpha * (3 - 2 * alpha);
      // where the crop covers the base whole, the base is not read
      const base = m >= 1 ? 0 : moved ? sample(copy, w, h, sbx, sby) : copy[own + x]!;
      let value = base;
      if (m > 0) {
        let c = sample(cropA, cw, ch, sax, say);
        if (readB) c = c * wa + sample(cropB, cw, ch, scx, scy) * wb;
        value = base + (c + off - base) * m;
      }
      dst[o] = value < 0 ? 0 : value > 255 ? 255 : value + 0.5;
      sbx += bx.g.x;
      sby += by.g.x;
      sax += ax.g.x;
      say += ay.g.x;
      scx += cx.g.x;
      scy += cy.g.x;
      alpha += al.g.x;
      off += of.g.x;
    }
  }
}
