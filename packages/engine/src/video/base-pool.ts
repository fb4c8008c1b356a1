/**
 * The base frames a video avatar plays (docs/design.md §11 "Base frames"): a pool of at most
 * POOL_LIMITS.maxFrames tracked frames from anywhere in the clip, in stretches of consecutive
 * frames (so the person's own motion plays between jumps). Calm footage (mouth still, audio quiet,
 * for at least a second and a half) is taken first, up to POOL_LIMITS.maxCalm frames, longest
 * stretches first; the rest of the budget goes to speech-time footage, in stretches of about
 * three seconds spread evenly over the clip, so the head moves while speaking as it did.
 *
 * Every speech-time frame gets a closed mouth composited in at import ("baked": video/base-frames.ts):
 * baking only the frames whose own mouth is open would make the mouth switch between the
 * person's own lips and the baked crop every few frames within a stretch (closures in speech
 * come and go at 25 fps), a flicker; baked stretches are whole. So every base frame's mouth is
 * closed, real or baked. Idle plays calm frames; when the clip has less than POOL_LIMITS.minIdle
 * calm frames, the baked speech-time frames are idle frames too (a clip without a calm stretch
 * still idles, with its own head motion and blinks).
 */

export interface PoolInput {
  /** Tracked (the face found, frontal). */
  valid: boolean;
  /** Mouth opening 0..1 and audio loudness 0..1 (relative to the clip's speech). */
  open: number;
  loudness: number;
}

export interface BasePool {
  /** Source clip frame of each base frame, ascending. */
  source: number[];
  /** May show at idle. */
  idle: boolean[];
  /** Recorded while the person spoke: the head motion shown while speaking. */
  speech: boolean[];
  /** A closed mouth is composited in at import (its own mouth may be open). */
  baked: boolean[];
}

export const POOL_LIMITS = {
  /** At most this many base frames (12 s at 25 fps; ≈ 118 MB of 512² I420 per pack and process). */
  maxFrames: 300,
  /** Calm frames beyond this leave room for speech-time footage. */
  maxCalm: 200,
  /** With fewer calm frames than this, baked speech-time frames idle too. */
  minIdle: 150,
  /** A calm stretch lasts at least this long (seconds). */
  calmSeconds: 1.5,
  /** Speech-time stretches are about this long (seconds), at least speechMinSeconds. */
  speechSeconds: 3,
  speechMinSeconds: 1,
  /** Frames dropped at each end of a calm stretch next to speech (a mouth still closing). */
  calmMargin: 3,
} as const;

/** A frame above these (mouth opening, loudness, 0..1) is speech. */
const ACTIVE_OPEN = 0.3;
const ACTIVE_LOUDNESS = 0.25;
/** A calm stretch's means stay below these. */
const CALM_OPEN = 0.15;
const CALM_LOUDNESS = 0.1;

interface Run {
  start: number;
  end: number;
}

/** Maximal runs of frames for which `keep` holds, at least `min` long. */
function runs(n: number, keep: (i: number) => boolean, min: number): Run[] {
  const out: Run[] = [];
  let start = -1;
  for (let i = 0; i <= n; i++) {
    const k = i < n && keep(i);
    if (k && start < 0) start = i;
    if (!k && start >= 0) {
      if (i - start >= min) out.push({ start, end: i });
      start = -1;
    }
  }
  return out;
}

function calmRuns(frames: readonly PoolInput[], fps: number): Run[] {
  const quiet = (i: number): boolean => {
    const f = frames[i]!;
    return f.valid && f.open <= ACTIVE_OPEN && f.loudness <= ACTIVE_LOUDNESS;
  };
  const m = POOL_LIMITS.calmMargin;
  return runs(frames.length, quiet, Math.round(POOL_LIMITS.calmSeconds * fps) + 2 * m)
    .map((r) => ({ start: r.start + (r.start > 0 ? m : 0), end: r.end - (r.end < frames.length ? m : 0) }))
    .filter((r) => {
      let open = 0;
      let loud = 0;
      for (let i = r.start; i < r.end; i++) {
        open += frames[i]!.open;
        loud += frames[i]!.loudness;
      }
      const n = r.end - r.start;
      return open / n < CALM_OPEN && loud / n < CALM_LOUDNESS;
    });
}

/** Windows of about `length` frames spread evenly over the runs (laid end to end), `budget` in all. */
function spread(segments: readonly Run[], budget: number, length: number): Run[] {
  const total = segments.reduce((s, r) => s + r.end - r.start, 0);
  if (total <= budget) return segments.slice();
  const k = Math.max(1, Math.ceil(budget / length));
  const w = Math.floor(budget / k);
  const out: Run[] = [];
  for (let m = 0; m < k; m++) {
    let at = Math.floor(((m + 0.5) * total) / k);
    const seg = segments.find((r) => {
      if (at < r.end - r.start) return true;
      at -= r.end - r.start;
      return false;
    })!;
    const len = Math.min(w, seg.end - seg.start);
    const start = Math.max(seg.start, Math.min(seg.end - len, seg.start + at - Math.floor(len / 2)));
    out.push({ start, end: start + len });
  }
  return out;
}

/** Chooses the base frames of a clip (`frames` one per clip frame at `fps`); empty when none is tracked. */
export function chooseBasePool(frames: readonly PoolInput[], fps: number): BasePool {
  const L = POOL_LIMITS;
  const calm: Run[] = [];
  let calmCount = 0;
  for (const r of calmRuns(frames, fps).sort((a, b) => b.end - b.start - (a.end - a.start))) {
    const len = Math.min(r.end - r.start, L.maxCalm - calmCount);
    if (len < Math.round(L.calmSeconds * fps)) continue;
    calm.push({ start: r.start, end: r.start + len });
    calmCount += len;
  }
  const inCalm = new Uint8Array(frames.length);
  for (const r of calm) inCalm.fill(1, r.start, r.end);
  const speechRuns = runs(
    frames.length,
    (i) => frames[i]!.valid && !inCalm[i],
    Math.round(L.speechMinSeconds * fps),
  );
  const speech = spread(speechRuns, L.maxFrames - calmCount, Math.round(L.speechSeconds * fps));
  const chosen = new Map<number, boolean>();
  for (const r of calm) for (let i = r.start; i < r.end; i++) chosen.set(i, false);
  for (const r of speech) for (let i = r.start; i < r.end; i++) if (!chosen.has(i)) chosen.set(i, true);
  const source = [...chosen.keys()].sort((a, b) => a - b);
  const speechIdles = calmCount < L.minIdle;
  return {
    source,
    idle: source.map((i) => !chosen.get(i) || speechIdles),
    speech: source.map((i) => chosen.get(i)!),
    baked: source.map((i) => chosen.get(i)!),
  };
}
