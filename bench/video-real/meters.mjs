// The live figures of bench:video-real, accumulated frame by frame: one meter over the frames a
// renderer made (each beside the base frame it was made on, read from the pack's base.i420 at the
// index `renderer.pick` answered), one over the clip's own frames. Every region comes from
// landmarks tracked on the frame itself or on the base frame (face-regions.mjs).
import {
  edgeChange,
  edgeEnergy,
  reachOf,
  jawBandOf,
  lowerFaceOf,
  maxOutside,
  meanChange,
  mouthOf,
  regionsOf,
  shareOver1,
} from './face-regions.mjs';

/** Frames after speech ends that the mouth may take to settle (the mouth's release, the fade). */
const IDLE_AFTER = 12;
const mean = (v) => (v.length ? v.reduce((a, x) => a + x, 0) / v.length : NaN);
const max = (v) => (v.length ? Math.max(...v) : NaN);
const median = (v) => (v.length ? [...v].sort((a, b) => a - b)[v.length >> 1] : NaN);

/**
 * Frames a video avatar made: `add(i420, baseFrame, lm, speaking)` with the rendered I420 frame,
 * the base frame index the renderer used, the landmarks tracked on the rendered frame and whether
 * speech is sounding. `baseLm[b]`: landmarks tracked on base frame b; `packLm[b]` (optional): the
 * pack's own landmarks of it (video.json, in frame pixels), whose reach counts too.
 */
export function createRenderMeter({ base, baseLm, packLm, size }) {
  const frameBytes = (size * size * 3) / 2;
  const regions = new Map();
  const regionsAt = (b) => {
    if (!regions.has(b)) {
      const r = regionsOf(baseLm[b], size);
      // the pack's own landmarks of the frame too (where the import saw the jaw), when it has them
      if (packLm?.[b]) {
        const own = reachOf(packLm[b], size);
        r.reach = r.reach.map((v, i) => v | own[i]);
      }
      regions.set(b, r);
    }
    return regions.get(b);
  };
  const none = new Uint8Array(size * size);
  const f = {
    outside: [],
    share: [],
    idleWhole: [],
    seam: [],
    seamBase: [],
    ghost: [],
    ghostChange: [],
    motion: [],
    open: [],
    dark: [],
  };
  let previous;
  let quiet = 0;
  return {
    add(i420, b, lm, speaking) {
      const baseI420 = base.subarray(b * frameBytes, (b + 1) * frameBytes);
      const r = regionsAt(b);
      const Y = i420.subarray(0, size * size);
      const baseY = baseI420.subarray(0, size * size);
      f.outside.push(maxOutside(i420, baseI420, size, r.reach));
      f.share.push(shareOver1(Y, baseY, r.reach));
      // at rest (no speech for IDLE_AFTER frames: the mouth has settled and the composite faded)
      quiet = speaking ? 0 : quiet + 1;
      if (quiet > IDLE_AFTER) f.idleWhole.push(maxOutside(i420, baseI420, size, none));
      if (speaking) {
        f.seam.push(edgeEnergy(Y, size, r.ring));
        f.seamBase.push(edgeEnergy(baseY, size, r.ring));
        f.ghost.push(edgeEnergy(Y, size, r.band));
        f.ghostChange.push(edgeChange(Y, baseY, size, r.band));
        const m = mouthOf(Y, size, lm);
        f.open.push(m.open);
        f.dark.push(m.dark);
        if (previous?.speaking) f.motion.push(meanChange(Y, previous.Y, r.lower));
      }
      previous = { Y: Y.slice(), speaking };
    },
    result() {
      return {
        frames: f.outside.length,
        speakingFrames: f.seam.length,
        outsideMax: max(f.outside),
        outsideOver1: f.outside.filter((d) => d > 1).length,
        outsideShareOver1: max(f.share),
        idleFrames: f.idleWhole.length,
        idleWholeMax: max(f.idleWhole),
        seam: mean(f.seam),
        seamBase: mean(f.seamBase),
        ghost: mean(f.ghost),
        ghostChange: mean(f.ghostChange),
        motion: mean(f.motion),
        openMax: max(f.open),
        openMean: mean(f.open),
        darkMax: max(f.dark),
        darkMean: mean(f.dark),
      };
    },
  };
}

/**
 * The clip's own frames: `add({ Y, lm }, speaking)` in order. The same measures, on the regions of
 * each frame's own landmarks; and, as a scale for "equals the base frame", the largest luma change
 * outside the composite's reach (the face and the neck under it) from one frame to the next (every
 * `outsideEvery`-th frame).
 */
export function createClipMeter({ size, outsideEvery = 5 }) {
  const f = { ghost: [], ghostChange: [], motion: [], open: [], dark: [], outside: [] };
  let previous;
  let k = 0;
  return {
    add({ Y, lm }, speaking) {
      if (speaking) {
        const band = jawBandOf(lm, size);
        f.ghost.push(edgeEnergy(Y, size, band));
        if (previous?.speaking) f.ghostChange.push(edgeChange(Y, previous.Y, size, band));
        const m = mouthOf(Y, size, lm);
        f.open.push(m.open);
        f.dark.push(m.dark);
        if (previous?.speaking) f.motion.push(meanChange(Y, previous.Y, lowerFaceOf(lm, size)));
      }
      if (previous && k % outsideEvery === 0) {
        const mask = reachOf(lm, size);
        let d = 0;
        for (let i = 0; i < mask.length; i++) if (!mask[i]) d = Math.max(d, Math.abs(Y[i] - previous.Y[i]));
        f.outside.push(d);
      }
      previous = { Y, speaking };
      k++;
    },
    result() {
      return {
        frames: k,
        speakingFrames: f.open.length,
        outsideNextMedian: median(f.outside),
        ghost: mean(f.ghost),
        ghostChange: mean(f.ghostChange),
        motion: mean(f.motion),
        openMax: max(f.open),
        openMean: mean(f.open),
        darkMax: max(f.dark),
        darkMean: mean(f.dark),
      };
    },
  };
}
