/** The mouth parameters of each shape and how strongly each wins when neighbours blend. */
import { REST_MOUTH, type MouthParams, type Viseme } from '../face-state.js';

export const MOUTH_SHAPES: Readonly<Record<Viseme, Readonly<MouthParams>>> = {
  A: { open: 0, width: 0.42, round: 0.1, teeth: 0, lipBite: 0, tongue: 0 },
  B: { open: 0.2, width: 0.58, round: 0, teeth: 0.75, lipBite: 0, tongue: 0 },
  C: { open: 0.48, width: 0.56, round: 0, teeth: 0.55, lipBite: 0, tongue: 0 },
  D: { open: 0.88, width: 0.6, round: 0, teeth: 0.45, lipBite: 0, tongue: 0.1 },
  E: { open: 0.5, width: 0.36, round: 0.55, teeth: 0.2, lipBite: 0, tongue: 0 },
  F: { open: 0.22, width: 0.2, round: 1, teeth: 0, lipBite: 0, tongue: 0 },
  G: { open: 0.12, width: 0.5, round: 0, teeth: 0.85, lipBite: 1, tongue: 0 },
  H: { open: 0.42, width: 0.52, round: 0, teeth: 0.5, lipBite: 0, tongue: 1 },
  X: REST_MOUTH,
};

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
