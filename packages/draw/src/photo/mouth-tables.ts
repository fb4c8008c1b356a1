/**
 * What the inner mouth of one frame looks like across the mouth, tabulated every half pixel along
 * it (s, along the face's r axis from the middle of the inner lip corners; t runs down the face):
 * the inner lips as smooth curves through their landmarks, and per column the teeth's edges and
 * shading and the tongue's top. inner-mouth.ts reads these per pixel; teeth.ts fills the teeth.
 */

/** Table spacing along the mouth, in output pixels. */
export const STEP = 0.5;

export interface MouthTables {
  /** s of entry 0, and the number of entries. */
  s0: number;
  n: number;
  /** Inner lip curves (t of the upper and lower inner lip) and each one's 1/√(1+slope²). */
  tu: Float32Array;
  tl: Float32Array;
  nu: Float32Array;
  nl: Float32Array;
  /** Upper teeth: t of the biting edge (and of its arc, without the teeth's rounded corners),
   * brightness across the teeth, closeness to a gap (0..1). */
  te: Float32Array;
  ta: Float32Array;
  ku: Float32Array;
  gu: Float32Array;
  /** Lower teeth: t of their top edge, brightness across them, closeness to a gap. */
  le: Float32Array;
  kl: Float32Array;
  gl: Float32Array;
  /** Tongue: t of its top and its brightness. */
  tt: Float32Array;
  kt: Float32Array;
  /** Light falling off towards the corners of the opening (the cheeks' shadow). */
  ks: Float32Array;
}

const FIELDS = ['tu', 'tl', 'nu', 'nl', 'te', 'ta', 'ku', 'gu', 'le', 'kl', 'gl', 'tt', 'kt', 'ks'] as const;

/** Tables with room for `n` entries (grown, never shrunk, as a renderer's frames need). */
export function ensureTables(tables: MouthTables | undefined, n: number): MouthTables {
  if (tables && tables.tu.length >= n) return tables;
  const size = Math.max(n, 64) * 2;
  const out = { s0: 0, n: 0 } as MouthTables;
  for (const f of FIELDS) out[f] = new Float32Array(size);
  return out;
}

/** The slopes of a chain's curve at its points. */
function tangents(ss: readonly number[], ts: readonly number[]): number[] {
  const last = ss.length - 1;
  const h = (k: number): number => Math.max(1e-3, ss[k + 1]! - ss[k]!);
  const secant = (k: number): number => (ts[k + 1]! - ts[k]!) / h(k);
  // inside: monotone tangents (Fritsch–Butland), so the curve never bulges past a landmark
  const inner = (k: number): number => {
    const d0 = secant(k - 1);
    const d1 = secant(k);
    if (d0 * d1 <= 0) return 0;
    return (3 * (h(k - 1) + h(k))) / ((2 * h(k) + h(k - 1)) / d0 + (h(k) + 2 * h(k - 1)) / d1);
  };
  // at the ends (the mouth's corners) the curve keeps bending as it did (a parabola's end), so
  // the opening is round rather than pointed; never steeper than three times the end's secant
  const end = (sec: number, next: number): number => {
    const e = 2 * sec - next;
    return Math.sign(e) === Math.sign(sec) ? Math.sign(e) * Math.min(Math.abs(e), 3 * Math.abs(sec)) : sec;
  };
  if (last < 2) return ss.map(() => secant(0));
  return ss.map((_, k) =>
    k === 0 ? end(secant(0), inner(1)) : k === last ? end(secant(last - 1), inner(last - 1)) : inner(k),
  );
}

/**
 * A smooth curve t(s) through the chain's points (s increasing), written into `t` and its normal
 * factor into `norm` at s0 + i·STEP for i < n: cubic Hermite pieces with monotone tangents,
 * held flat outside the chain.
 */
export function chainCurve(
  ss: readonly number[],
  ts: readonly number[],
  s0: number,
  n: number,
  t: Float32Array,
  norm: Float32Array,
): void {
  const last = ss.length - 1;
  const m = tangents(ss, ts);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const s = s0 + i * STEP;
    if (s <= ss[0]!) {
      t[i] = ts[0]!;
      norm[i] = 1;
      continue;
    }
    if (s >= ss[last]!) {
      t[i] = ts[last]!;
      norm[i] = 1;
      continue;
    }
    while (k < last - 1 && s > ss[k + 1]!) k++;
    const h = Math.max(1e-3, ss[k + 1]! - ss[k]!);
    const x = (s - ss[k]!) / h;
    const m0 = m[k]! * h;
    const m1 = m[k + 1]! * h;
    const x2 = x * x;
    const x3 = x2 * x;
    t[i] =
      (2 * x3 - 3 * x2 + 1) * ts[k]! +
      (x3 - 2 * x2 + x) * m0 +
      (-2 * x3 + 3 * x2) * ts[k + 1]! +
      (x3 - x2) * m1;
    const slope =
      ((6 * x2 - 6 * x) * ts[k]! +
        (3 * x2 - 4 * x + 1) * m0 +
        (6 * x - 6 * x2) * ts[k + 1]! +
        (3 * x2 - 2 * x) * m1) /
      h;
    norm[i] = 1 / Math.sqrt(1 + slope * slope);
  }
}

/** Hermite smoothstep of x between a and b. */
export function smoothstep(a: number, b: number, x: number): number {
  const v = Math.min(1, Math.max(0, (x - a) / (b - a)));
  return v * v * (3 - 2 * v);
}
