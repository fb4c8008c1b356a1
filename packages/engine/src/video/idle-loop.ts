/**
 * The idle base: a stretch of calm footage (mouth still, audio quiet, face tracked throughout),
 * as long as the clip has (up to 8 s), that loops without a visible jump. Where a frame 4–8 s later matches the stretch's first frame
 * (thumbnails and landmarks both close), the loop cuts there; otherwise it plays back and forth
 * (ping-pong), which never jumps.
 */
import type { Landmarks } from './face-tracker.js';
import { STABLE_LANDMARKS } from './pack.js';
import { thumbDistance } from './pixels.js';

export interface IdleFrame {
  valid: boolean;
  landmarks: Landmarks;
  thumb: Uint8Array;
  /** Mouth opening 0..1 and audio loudness 0..1 (relative to the clip's speech). */
  open: number;
  loudness: number;
}

export interface IdleLoop {
  start: number;
  /** Frames in the loop. */
  length: number;
  loop: 'cut' | 'pingpong';
  /** Mean thumbnail difference at the cut (grey levels) and mean stable-landmark distance (px). */
  seamGrey: number;
  seamPx: number;
}

/** A cut is taken when the frames meet this closely (grey levels, pixels at framePx 512). */
const CUT_GREY = 3;
const CUT_PX = 2;

function landmarkDistance(a: Landmarks, b: Landmarks): number {
  let s = 0;
  for (const i of STABLE_LANDMARKS) s += Math.hypot(a[i]![0] - b[i]![0], a[i]![1] - b[i]![1]);
  return s / STABLE_LANDMARKS.length;
}

/** Any frame above these (mouth opening, loudness, 0..1) is speech and stays out of the loop. */
const ACTIVE_OPEN = 0.3;
const ACTIVE_LOUDNESS = 0.25;
/** A stretch counts as calm below these means (mouth opening and loudness, 0..1). */
const CALM_OPEN = 0.15;
const CALM_LOUDNESS = 0.1;

/**
 * The longest stretch (8 s down to 1.5 s) whose frames are all tracked and none of them speaks,
 * when its means are calm too; else the calmest stretch whose frames are all tracked.
 */
export function chooseIdleLoop(frames: readonly IdleFrame[], fps: number): IdleLoop | undefined {
  let calmest: { loop: IdleLoop; cost: number } | undefined;
  for (const strict of [true, false])
    for (const seconds of [8, 6, 4, 3, 2, 1.5]) {
      const found = search(frames, Math.round(seconds * fps), Math.round((seconds + 2) * fps), strict);
      if (!found) continue;
      const { loop, open, loudness } = found;
      if (strict && open < CALM_OPEN && loudness < CALM_LOUDNESS) return loop;
      const cost = open + 2 * loudness;
      if (!calmest || cost < calmest.cost) calmest = { loop, cost };
    }
  return calmest?.loop;
}

function search(
  frames: readonly IdleFrame[],
  length: number,
  reach: number,
  strict: boolean,
): { loop: IdleLoop; open: number; loudness: number } | undefined {
  // prefix sums of unusable frames and of calmness, so every window's score costs O(1)
  const n = frames.length;
  const usable = (f: IdleFrame): boolean =>
    f.valid && (!strict || (f.open <= ACTIVE_OPEN && f.loudness <= ACTIVE_LOUDNESS));
  const unusable = new Int32Array(n + 1);
  const calm = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    const f = frames[i]!;
    unusable[i + 1] = unusable[i]! + (usable(f) ? 0 : 1);
    const motion = i > 0 ? thumbDistance(f.thumb, frames[i - 1]!.thumb) / 4 : 0;
    calm[i + 1] = calm[i]! + f.open + 2 * f.loudness + motion;
  }
  let best: { start: number; cost: number } | undefined;
  for (let s = 0; s + length <= n; s += 2) {
    if (unusable[s + length]! - unusable[s]! > 0) continue;
    const cost = (calm[s + length]! - calm[s]!) / length;
    if (!best || cost < best.cost) best = { start: s, cost };
  }
  if (!best) return undefined;
  const s = best.start;
  let open = 0;
  let loudness = 0;
  for (let i = s; i < s + length; i++) {
    open += frames[i]!.open / length;
    loudness += frames[i]!.loudness / length;
  }
  const first = frames[s]!;
  // a cut at e plays [s, e): every frame before e must be usable, e itself tracked
  let cut: { end: number; grey: number; px: number; score: number } | undefined;
  for (let e = s + Math.round(length * 0.67); e < Math.min(n, s + reach); e++) {
    if (!usable(frames[e - 1]!)) break;
    const f = frames[e]!;
    if (!f.valid) continue;
    const grey = thumbDistance(first.thumb, f.thumb);
    const px = landmarkDistance(first.landmarks, f.landmarks);
    const score = grey / CUT_GREY + px / CUT_PX;
    if (!cut || score < cut.score) cut = { end: e, grey, px, score };
  }
  if (cut && cut.grey <= CUT_GREY && cut.px <= CUT_PX)
    return {
      loop: { start: s, length: cut.end - s, loop: 'cut', seamGrey: cut.grey, seamPx: cut.px },
      open,
      loudness,
    };
  // ping-pong: the turn-around is never a jump; report how different the ends are anyway
  const last = frames[s + length - 1]!;
  return {
    loop: {
      start: s,
      length,
      loop: 'pingpong',
      seamGrey: thumbDistance(first.thumb, last.thumb),
      seamPx: landmarkDistance(first.landmarks, last.landmarks),
    },
    open,
    loudness,
  };
}
