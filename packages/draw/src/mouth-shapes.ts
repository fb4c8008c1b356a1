/** The mouth parameters of each shape: lip-sync blends them, sprite packs hold one picture per shape. */
import type { MouthParams, Viseme } from './face.js';

export const MOUTH_SHAPES: Readonly<Record<Viseme, Readonly<MouthParams>>> = Object.freeze({
  A: { open: 0, width: 0.42, round: 0.1, teeth: 0, lipBite: 0, tongue: 0 },
  B: { open: 0.2, width: 0.58, round: 0, teeth: 0.75, lipBite: 0, tongue: 0 },
  C: { open: 0.48, width: 0.56, round: 0, teeth: 0.55, lipBite: 0, tongue: 0 },
  D: { open: 0.88, width: 0.6, round: 0, teeth: 0.45, lipBite: 0, tongue: 0.1 },
  E: { open: 0.5, width: 0.36, round: 0.55, teeth: 0.2, lipBite: 0, tongue: 0 },
  F: { open: 0.22, width: 0.2, round: 1, teeth: 0, lipBite: 0, tongue: 0 },
  G: { open: 0.12, width: 0.5, round: 0, teeth: 0.85, lipBite: 1, tongue: 0 },
  H: { open: 0.42, width: 0.52, round: 0, teeth: 0.5, lipBite: 0, tongue: 1 },
  X: { open: 0, width: 0.35, round: 0, teeth: 0, lipBite: 0, tongue: 0 },
});

export const VISEMES = Object.keys(MOUTH_SHAPES) as Viseme[];
