/**
 * The teeth of a photo avatar's inner mouth, tabulated across the mouth (mouth-tables.ts): which
 * tooth each column crosses, how bright it is there (each tooth rounded, darker at its sides, the
 * row darker as it turns away towards the corners), how close a gap between teeth is (gaps are
 * soft, deepest at the biting edge), and where the biting edge runs (a smile arc, each tooth's
 * corners rounded). The teeth hang from the upper jaw: their edge is placed from where the lips
 * meet at rest, not from the lips of the frame.
 */
import { STEP, type MouthTables } from './mouth-tables.js';

/** Where teeth meet, in fractions of the half mouth width at rest from the middle (as seen from the front). */
const UPPER = [0, 0.26, 0.45, 0.59, 0.7, 0.8, 0.89, 0.97, 1.05, 1.13, 1.21];
const LOWER = [0, 0.15, 0.3, 0.44, 0.56, 0.67, 0.77, 0.86, 0.95, 1.04, 1.13];

export interface TeethPlacement {
  /** s of the face's middle, the half mouth width at rest and the mouth width at rest, in output pixels. */
  sMid: number;
  half: number;
  mouthW: number;
  /** t of where the lips meet at rest. */
  stomT: number;
  /** How far the upper teeth reach below that, and how much of the lower teeth shows. */
  upperDrop: number;
  lowerShow: number;
}

/** Each tooth's own tone, from the middle out: the front teeth brightest, canines a little duller. */
const TONE = [1, 0.95, 0.9, 0.87, 0.85, 0.84, 0.83, 0.82, 0.81, 0.8];

/** The tooth a column crosses: which (from the middle), how far across it (0..1), its width in pixels. */
function toothAt(edges: readonly number[], a: number, half: number): { k: number; x: number; width: number } {
  let k = 0;
  while (k < edges.length - 2 && a > edges[k + 1]!) k++;
  const w = edges[k + 1]! - edges[k]!;
  return { k, x: Math.min(1, (a - edges[k]!) / w), width: w * half };
}

/** How far a tooth's edge draws back at `d` pixels from the gap: its rounded corner, `depth`
 * deep and `w` wide (two neighbours' corners make a soft notch, not a line). */
function cornerLift(d: number, depth: number, w: number): number {
  if (depth <= 0 || d >= w) return 0;
  const e = 1 - d / w;
  return depth * e * e;
}

/** Brightness across a tooth: a broad highlight, its sides turning away into a soft valley. */
function across(x: number): number {
  const c = Math.sin(Math.PI * x);
  return 0.84 + 0.16 * c * c;
}

/** Fills the tables' teeth columns (te, ta, ku, gu, le, kl, gl); needs the lip curves (tu, tl). */
export function teethTables(tb: MouthTables, p: TeethPlacement): void {
  for (let i = 0; i < tb.n; i++) {
    const a = Math.abs(tb.s0 + i * STEP - p.sMid) / p.half;
    // the row turns away from the light towards the corners
    const arch = Math.max(0.18, 1 - 0.78 * a * a);
    const up = toothAt(UPPER, a, p.half);
    const du = Math.min(up.x, 1 - up.x) * up.width;
    const arc = p.stomT + p.upperDrop - 0.07 * p.mouthW * a * a;
    const notch = Math.min(0.9, 0.12 * Math.max(0, arc - tb.tu[i]!));
    tb.te[i] = arc - cornerLift(du, notch, Math.min(3.5, 0.35 * up.width));
    tb.ta[i] = arc;
    tb.ku[i] = across(up.x) * arch * TONE[up.k]!;
    tb.gu[i] = Math.exp(-((du / 0.8) ** 2));
    const lo = toothAt(LOWER, a, p.half);
    const dl = Math.min(lo.x, 1 - lo.x) * lo.width;
    // the lower lip hides the lower teeth towards the corners
    const show = p.lowerShow * Math.max(0, 1 - (a / 0.75) ** 2);
    // (placed so that no sliver of tooth shows along the lip where none should)
    tb.le[i] =
      tb.tl[i]! - show + 0.7 + cornerLift(dl, Math.min(1, 0.25 * show), Math.min(2.5, 0.3 * lo.width));
    tb.kl[i] = across(lo.x) * arch * TONE[lo.k]!;
    tb.gl[i] = Math.exp(-((dl / 0.5) ** 2));
  }
}
