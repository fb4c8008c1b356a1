// The regions bench:video-real measures in, all defined from a frame's own 68 tracked landmarks
// (iBUG order) and nothing of the renderer: the face mask (the jaw contour 0–16 closed over the
// top of the nose bridge, 27, dilated a few pixels), a ring across the mask's boundary, a band just
// below the jaw line, the lower face (jaw 3–13 closed over the nose tip, 33) and the inner lips
// (60–67). Masks are size×size Uint8Arrays (1 inside); pixels count at their centres.

/** Even-odd scanline fill of a closed polygon [[x, y], …] into a w×h mask. */
export function fillPolygon(pts, w, h, out = new Uint8Array(w * h)) {
  for (let y = 0; y < h; y++) {
    const cy = y + 0.5;
    const xs = [];
    for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
      const [xi, yi] = pts[i];
      const [xj, yj] = pts[j];
      if (yi > cy !== yj > cy) xs.push(xi + ((cy - yi) / (yj - yi)) * (xj - xi));
    }
    xs.sort((a, b) => a - b);
    for (let k = 0; k + 1 < xs.length; k += 2) {
      const from = Math.max(0, Math.ceil(xs[k] - 0.5));
      const to = Math.min(w - 1, Math.floor(xs[k + 1] - 0.5));
      for (let x = from; x <= to; x++) out[y * w + x] = 1;
    }
  }
  return out;
}

/** Max filter over a (2r+1)² square: the mask grown by r px (erode: `invert` it first). */
export function dilate(mask, w, h, r) {
  const rows = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let v = 0;
      for (let d = Math.max(0, x - r); d <= Math.min(w - 1, x + r) && !v; d++) v = mask[y * w + d];
      rows[y * w + x] = v;
    }
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let v = 0;
      for (let d = Math.max(0, y - r); d <= Math.min(h - 1, y + r) && !v; d++) v = rows[d * w + x];
      out[y * w + x] = v;
    }
  return out;
}

const invert = (m) => m.map((v) => 1 - v);
const centre = (lm, from, to) => {
  let x = 0;
  let y = 0;
  for (let k = from; k <= to; k++) {
    x += lm[k][0];
    y += lm[k][1];
  }
  return [x / (to - from + 1), y / (to - from + 1)];
};

/** Distance between the eyes' centres (landmarks 36–41 and 42–47): the face's scale. */
export function eyeDistance(lm) {
  const [ax, ay] = centre(lm, 36, 41);
  const [bx, by] = centre(lm, 42, 47);
  return Math.hypot(bx - ax, by - ay);
}

/** Pixels the face mask is grown by, and the ring's half width, at a 512 px frame. */
export const MASK_DILATE_PX = 4;
export const RING_PX = 2;

/** The face mask: the jaw contour closed over the top of the nose bridge, grown MASK_DILATE_PX. */
export function faceMaskOf(lm, size) {
  return dilate(fillPolygon([...lm.slice(0, 17), lm[27]], size, size), size, size, MASK_DILATE_PX);
}

/**
 * The neck under the jaw that a composite may move with the chin (the issue asks for the base's
 * neck to follow a dropped or raised chin, so no pale band or second chin shows): each jaw point
 * 3–13 pushed out along the jaw's normal by NECK_REACH of the jaw's width (0–16).
 */
export const NECK_REACH = 0.45;
export function neckBandOf(lm, size) {
  const [cx, cy] = [(lm[33][0] + lm[8][0]) / 2, (lm[33][1] + lm[8][1]) / 2];
  const width = Math.hypot(lm[16][0] - lm[0][0], lm[16][1] - lm[0][1]);
  const jaw = lm.slice(3, 14);
  const out = jaw.map(([x, y], k) => {
    const i = k + 3;
    let [nx, ny] = [lm[i + 1][1] - lm[i - 1][1], -(lm[i + 1][0] - lm[i - 1][0])];
    if (nx * (x - cx) + ny * (y - cy) < 0) [nx, ny] = [-nx, -ny];
    const n = Math.hypot(nx, ny) || 1;
    return [x + (nx / n) * NECK_REACH * width, y + (ny / n) * NECK_REACH * width];
  });
  return fillPolygon([...jaw, ...out.reverse()], size, size);
}

/**
 * Pixels the reach is grown by: the landmarks tracked here on a base frame differ from the ones
 * the import tracked (and the composite places its mesh by) by a few pixels, most on baked frames
 * and at the jaw's ends, whose neck band reaches far out along the jaw's slant.
 */
export const REACH_DILATE_PX = 8;

/**
 * Where a composite may change the picture: the face mask and the neck band under the jaw, grown
 * REACH_DILATE_PX. Outside it the output must be the base frame.
 */
export function reachOf(lm, size) {
  const face = fillPolygon([...lm.slice(0, 17), lm[27]], size, size);
  const neck = neckBandOf(lm, size);
  return dilate(
    face.map((v, i) => v | neck[i]),
    size,
    size,
    REACH_DILATE_PX,
  );
}

/** From the jaw line (2–14) down by a fifth of the eye distance along the face's own down. */
export function jawBandOf(lm, size) {
  const [dx, dy] = [lm[8][0] - lm[27][0], lm[8][1] - lm[27][1]];
  const k = (0.2 * eyeDistance(lm)) / Math.hypot(dx, dy);
  const line = lm.slice(2, 15);
  return fillPolygon([...line, ...line.map(([x, y]) => [x + dx * k, y + dy * k]).reverse()], size, size);
}

/** The lower face: the jaw 3–13 closed over the nose tip. */
export const lowerFaceOf = (lm, size) => fillPolygon([...lm.slice(3, 14), lm[33]], size, size);

/**
 * A frame's regions from its landmarks: `mask` (the face mask), `reach` (it and the neck under the
 * jaw: where a composite may change anything), `ring` (pixels within RING_PX of
 * the mask's boundary, either side), `band` (below the jaw line), `lower` (the lower face).
 */
export function regionsOf(lm, size) {
  const mask = faceMaskOf(lm, size);
  const grown = dilate(mask, size, size, RING_PX);
  const shrunk = invert(dilate(invert(mask), size, size, RING_PX));
  const ring = grown.map((v, i) => v & (1 - shrunk[i]));
  return { mask, reach: reachOf(lm, size), ring, band: jawBandOf(lm, size), lower: lowerFaceOf(lm, size) };
}

/** Sobel gradient magnitude of a luma plane at (x, y), per pixel of distance. */
function gradient(Y, w, x, y) {
  const p = (dx, dy) => Y[(y + dy) * w + x + dx];
  const gx = p(1, -1) + 2 * p(1, 0) + p(1, 1) - p(-1, -1) - 2 * p(-1, 0) - p(-1, 1);
  const gy = p(-1, 1) + 2 * p(0, 1) + p(1, 1) - p(-1, -1) - 2 * p(0, -1) - p(1, -1);
  return Math.hypot(gx, gy) / 8;
}

/** Mean gradient magnitude of luma over a region (its frame-border pixels left out). */
export function edgeEnergy(Y, size, region) {
  let sum = 0;
  let n = 0;
  for (let y = 1; y < size - 1; y++)
    for (let x = 1; x < size - 1; x++)
      if (region[y * size + x]) {
        sum += gradient(Y, size, x, y);
        n++;
      }
  return n ? sum / n : NaN;
}

/** Mean |Δ| of two luma planes' gradient magnitudes over a region: edges added or taken away. */
export function edgeChange(a, b, size, region) {
  let sum = 0;
  let n = 0;
  for (let y = 1; y < size - 1; y++)
    for (let x = 1; x < size - 1; x++)
      if (region[y * size + x]) {
        sum += Math.abs(gradient(a, size, x, y) - gradient(b, size, x, y));
        n++;
      }
  return n ? sum / n : NaN;
}

/** Mean |ΔY| of two luma planes over a region. */
export function meanChange(a, b, region) {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < region.length; i++)
    if (region[i]) {
      sum += Math.abs(a[i] - b[i]);
      n++;
    }
  return n ? sum / n : NaN;
}

/** The share of luma pixels outside a mask where two planes differ by more than one grey level. */
export function shareOver1(a, b, mask) {
  let over = 0;
  let n = 0;
  for (let i = 0; i < mask.length; i++)
    if (!mask[i]) {
      n++;
      if (Math.abs(a[i] - b[i]) > 1) over++;
    }
  return n ? over / n : NaN;
}

/**
 * Largest |Δ| of two I420 frames (size×size) outside a mask, every plane (a chroma sample counts
 * as outside when none of its four luma pixels is inside).
 */
export function maxOutside(a, b, size, mask) {
  let max = 0;
  for (let i = 0; i < size * size; i++) if (!mask[i]) max = Math.max(max, Math.abs(a[i] - b[i]));
  const half = size / 2;
  for (let plane = 0; plane < 2; plane++) {
    const at = size * size + plane * half * half;
    for (let y = 0; y < half; y++)
      for (let x = 0; x < half; x++) {
        const i = 2 * y * size + 2 * x;
        if (mask[i] || mask[i + 1] || mask[i + size] || mask[i + size + 1]) continue;
        const c = at + y * half + x;
        max = Math.max(max, Math.abs(a[c] - b[c]));
      }
  }
  return max;
}

/**
 * The mouth: the landmark opening (inner-lip gap, the mean of 61–67, 62–66 and 63–65, over the
 * eye distance) and the dark area inside the inner lips (pixels under half the lower face's median
 * luma, over the eye distance squared).
 */
export function mouthOf(Y, size, lm) {
  const eyes = eyeDistance(lm);
  const gap = [
    [61, 67],
    [62, 66],
    [63, 65],
  ].reduce((s, [a, b]) => s + Math.hypot(lm[a][0] - lm[b][0], lm[a][1] - lm[b][1]), 0);
  const lower = lowerFaceOf(lm, size);
  const histogram = new Uint32Array(256);
  let n = 0;
  for (let i = 0; i < lower.length; i++)
    if (lower[i]) {
      histogram[Y[i]]++;
      n++;
    }
  let median = 0;
  for (let seen = 0; median < 255 && (seen += histogram[median]) < n / 2;) median++;
  const lips = fillPolygon(lm.slice(60, 68), size, size);
  let dark = 0;
  for (let i = 0; i < lips.length; i++) if (lips[i] && Y[i] < median / 2) dark++;
  return { open: gap / 3 / eyes, dark: dark / (eyes * eyes) };
}
