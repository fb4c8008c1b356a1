/**
 * Frames whose mouth is covered (a hand, a microphone, hair) although the face is still found and
 * tracked: the detectors see a face with its lower half hidden, but the mouth library must not
 * hold those crops. A mouth shows lips — strong horizontal edges (the lip lines, the opening,
 * teeth) — so in each library crop the mean vertical grey step inside the mouth's region is
 * compared with the clip's own (its 90th percentile: uncovered frames, unless nearly all are
 * covered) and with the rest of the crop: a mouth region flatter than a third of the clip's
 * mouths, or flatter than its surroundings, is covered. On the shared real footage uncovered
 * mouths measure 2.4–7.1 grey levels a pixel (surroundings 1.4–2.6) and a skin-coloured patch
 * over mouth and chin 0.0–1.0.
 */
import type { Landmarks } from './face-tracker.js';
import type { TrackedFrame } from './track-clip.js';

type Box = { x: number; y: number; width: number; height: number };

/** Below this fraction of the clip's 90th percentile a mouth region is covered. */
const FLAT = 0.35;

/** The mouth's region in crop pixels: the canonical lips' box, grown for the opening jaw. */
export function mouthRegion(box: Box, canonical: Landmarks): Box {
  const lips = canonical.slice(48, 60);
  const x0 = Math.min(...lips.map((p) => p[0])) - box.x;
  const x1 = Math.max(...lips.map((p) => p[0])) - box.x;
  const y0 = Math.min(...lips.map((p) => p[1])) - box.y;
  const y1 = Math.max(...lips.map((p) => p[1])) - box.y;
  const w = x1 - x0;
  const h = y1 - y0;
  const x = Math.max(0, Math.floor(x0 - w * 0.1));
  const y = Math.max(0, Math.floor(y0 - h * 0.3));
  return {
    x,
    y,
    width: Math.min(box.width, Math.ceil(x1 + w * 0.1)) - x,
    height: Math.min(box.height - 1, Math.ceil(y1 + h * 0.6)) - y,
  };
}

/** Mean vertical grey step inside the region and outside it, of a crop's luma plane. */
export function edgeEnergy(luma: Uint8Array, width: number, height: number, r: Box): [number, number] {
  let inside = 0;
  let nIn = 0;
  let outside = 0;
  let nOut = 0;
  for (let y = 0; y < height - 1; y++)
    for (let x = 0; x < width; x++) {
      const step = Math.abs(luma[(y + 1) * width + x]! - luma[y * width + x]!);
      if (x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height) {
        inside += step;
        nIn++;
      } else {
        outside += step;
        nOut++;
      }
    }
  return [inside / Math.max(1, nIn), outside / Math.max(1, nOut)];
}

/**
 * Marks tracked frames whose mouth is covered as not valid (lost: 'covered'), judged on the
 * library's crops; a frame without a crop (the library's stride) follows the crop before it.
 * Answers how many frames it marked.
 */
export function markCoveredMouths(frames: TrackedFrame[], box: Box, canonical: Landmarks): number {
  const region = mouthRegion(box, canonical);
  const scores = new Map<number, [number, number]>();
  frames.forEach((f, i) => {
    if (f.valid && f.crop) scores.set(i, edgeEnergy(f.crop, box.width, box.height, region));
  });
  const inside = [...scores.values()].map(([a]) => a).sort((a, b) => a - b);
  const p90 = inside[Math.floor(inside.length * 0.9)] ?? 0;
  let covered = false;
  let marked = 0;
  frames.forEach((f, i) => {
    const s = scores.get(i);
    if (s) covered = s[0] < Math.max(FLAT * p90, s[1]);
    else if (f.crop || !f.valid) covered = false;
    if (!covered || !f.valid) return;
    f.valid = false;
    f.lost = 'covered';
    delete f.crop;
    marked++;
  });
  return marked;
}
