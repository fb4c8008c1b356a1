/** The mouth parameters of each shape and how strongly each wins when neighbours blend. */
import { REST_MOUTH, type MouthParams, type Viseme } from '../face-state.js';

/** The shape table lives with the drawing code (sprite packs hold one picture per shape). */
export { MOUTH_SHAPES } from '@mouthpiece/draw';

/** Coarticulation dominance: closures and lip-bites win, t/d/k/s take their neighbours' shape. */
export const DOMINANCE: Readonly<Record<Viseme, number>> = {
  A: 3.0,
  G: 2.0,
  F: 1.6,
  D: 1.2,
  E: 1.1,
  C: 1.0,
  X: 0.8,
  H: 0.6,
  B: 0.5,
};

export function mixMouth(parts: ReadonlyArray<{ w: number; p: Readonly<MouthParams> }>): MouthParams {
  const weighted = parts.filter((x) => x.w > 0);
  if (weighted.length === 1) return { ...weighted[0]!.p }; // exact, no rounding drift
  const out: MouthParams = { open: 0, width: 0, round: 0, teeth: 0, lipBite: 0, tongue: 0 };
  let total = 0;
  for (const { w, p } of weighted) {
    total += w;
    out.open += w * p.open;
    out.width += w * p.width;
    out.round += w * p.round;
    out.teeth += w * p.teeth;
    out.lipBite += w * p.lipBite;
    out.tongue += w * p.tongue;
  }
  if (total <= 0) return { ...REST_MOUTH };
  for (const k of Object.keys(out) as Array<keyof MouthParams>) out[k] /= total;
  return out;
}
