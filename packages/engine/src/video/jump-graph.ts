/**
 * The base frames' video-texture graph (Schödl, Szeliski, Salesin and Essa, "Video Textures",
 * SIGGRAPH 2000; docs/design.md §11 "Base frames"): for each base frame, the frames the player may
 * jump to after it instead of playing on, and what each jump costs.
 *
 * Two frames' distance is their 48² grey thumbnails' mean difference over GREY_UNIT plus their
 * stable landmarks' mean distance over PX_UNIT (the units of the old idle loop's cut: 3 grey
 * levels, 2 px at 512²) plus their eyes' openness difference over EYE_UNIT (blinks stay whole). A jump i → j shows j where i + 1 would have come, so, as Schödl does to
 * keep the motion's dynamics, it is judged by comparing the short window around i + 1 with the
 * window around j (weights 1 3 3 1 over i−1…i+2 against j−2…j+1; taps outside a stretch are left
 * out, and such a jump is never seamless; with none left, the two frames themselves plus STALL). A jump's cost is that over the limit,
 * the clip's own 90th percentile of frame-to-frame distance (at least JUMP_FLOOR): a jump no
 * larger than the person's quicker moves between two frames; the 95th or 98th where the 90th
 * leaves a stretch a second without a jump (STEP_QUANTILES, MAX_GAP). Jumps of
 * cost ≤ 1 may be taken at will; each frame keeps its JUMPS_PER_SET cheapest of them into the idle
 * frames and into the speech-time frames. The last frame of a stretch must jump: it keeps its
 * cheapest jump into its own set even above 1, so the walk never ends.
 */
import type { Landmarks } from './face-tracker.js';
import { STABLE_LANDMARKS } from './pack.js';
import { thumbDistance } from './pixels.js';

export interface GraphFrame {
  /** Source clip frame (consecutive source frames play on). */
  source: number;
  thumb: Uint8Array;
  landmarks: Landmarks;
}

export interface JumpGraph {
  /** Per base frame, the base frames it may jump to, cheapest first. */
  jumps: number[][];
  /** Per jump, its cost (1: the limit, two decimals). */
  cost: number[][];
  /** The limit a jump is measured against, in distance units. */
  limit: number;
}

const GREY_UNIT = 3;
const PX_UNIT = 2;
/**
 * Eye openness counts too: the eyes are a few pixels of a 48² thumbnail, and a jump into the middle
 * of a blink would start it half closed (his blinks must stay his own, whole).
 */
const EYE_UNIT = 0.1;
/**
 * The limit is one of these quantiles of the clip’s own frame-to-frame distances: a jump no larger than the
 * person's quicker changes between two frames. (A talking head moves: on the real test clip the
 * median step is 2.6 px of the eyes and nose at 512², and the nearest other frame of a 12 s pool
 * is about twice that far, so a median step would leave almost no jump.)
 */
const STEP_QUANTILES = [0.9, 0.95, 0.98] as const;
/** Frames in a row without a seamless jump the limit allows before it is raised (1 s at 25 fps). */
const MAX_GAP = 25;
/** A jump this close (distance units) is always taken as seamless. */
const JUMP_FLOOR = 0.5;
/** A stretch's last frame keeps at least this many jumps into its own set. */
const ESCAPES = 3;
/** Jumps kept per frame into each set lead this far apart (source frames) or more. */
const DISTINCT = 4;
/** Jumps kept per frame into each set. */
export const JUMPS_PER_SET = 8;
/**
 * A jump lands at least this far (source frames, 1 s at the import's 25 fps) from the frame that
 * would have come: no stutter, and no short stretch played twice in a row.
 */
export const MIN_SKIP = 25;
/** What holding a frame costs beyond the frames' distance (distance units). */
const STALL = 1;
const TAPS = [
  [-1, 1],
  [0, 3],
  [1, 3],
  [2, 1],
] as const;

function landmarkDistance(a: Landmarks, b: Landmarks): number {
  let s = 0;
  for (const i of STABLE_LANDMARKS) s += Math.hypot(a[i]![0] - b[i]![0], a[i]![1] - b[i]![1]);
  return s / STABLE_LANDMARKS.length;
}

/**
 * How open the eyes are: the lids' mean gap over the eye's width, both eyes (about 0.3 open, under
 * 0.1 closed); 0 without the 68 landmarks.
 */
export function eyeOpenness(lm: Landmarks): number {
  if (lm.length < 68) return 0;
  const d = (i: number, j: number): number => Math.hypot(lm[i]![0] - lm[j]![0], lm[i]![1] - lm[j]![1]);
  const eye = (c0: number, c1: number, t0: number, b0: number, t1: number, b1: number): number =>
    (d(t0, b0) + d(t1, b1)) / (2 * Math.max(1e-6, d(c0, c1)));
  return (eye(36, 39, 37, 41, 38, 40) + eye(42, 45, 43, 47, 44, 46)) / 2;
}

/** Pairwise frame distances, n×n. */
export function frameDistances(frames: readonly GraphFrame[]): Float32Array {
  const n = frames.length;
  const d = new Float32Array(n * n);
  const eyes = frames.map((f) => eyeOpenness(f.landmarks));
  for (let a = 0; a < n; a++)
    for (let b = a + 1; b < n; b++) {
      const fa = frames[a]!;
      const fb = frames[b]!;
      const v =
        thumbDistance(fa.thumb, fb.thumb) / GREY_UNIT +
        landmarkDistance(fa.landmarks, fb.landmarks) / PX_UNIT +
        Math.abs(eyes[a]! - eyes[b]!) / EYE_UNIT;
      d[a * n + b] = v;
      d[b * n + a] = v;
    }
  return d;
}

/** The base frame `k` frames after `i` in the same stretch, or -1. */
function along(frames: readonly GraphFrame[], i: number, k: number): number {
  const j = i + k;
  if (j < 0 || j >= frames.length) return -1;
  return frames[j]!.source === frames[i]!.source + k ? j : -1;
}

/**
 * The windowed distance of jumping from i to j, and whether every tap compared (a jump from a
 * stretch's last two frames or into its first two compares fewer: direction goes unjudged).
 */
function jumpDistance(
  frames: readonly GraphFrame[],
  d: Float32Array,
  i: number,
  j: number,
): [number, boolean] {
  const n = frames.length;
  let sum = 0;
  let weight = 0;
  let taps = 0;
  for (const [k, w] of TAPS) {
    const a = along(frames, i, k);
    const b = along(frames, j, k - 1);
    if (a < 0 || b < 0) continue;
    sum += w * d[a * n + b]!;
    weight += w;
    taps++;
  }
  // two stretches' ends meet: the jump holds a frame (i then j), judged by the frames themselves
  if (weight === 0) return [d[i * n + j]! + STALL, false];
  return [sum / weight, taps === TAPS.length];
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const s = values.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * q))]!;
}

/**
 * The cheapest `count` candidates (sorted cheapest first) no two within DISTINCT source frames of
 * each other: only the best of a run of neighbouring targets (Schödl keeps local minima), so the
 * jumps lead to different footage.
 */
function distinct(frames: readonly GraphFrame[], sorted: readonly Candidate[], count: number): Candidate[] {
  const out: Candidate[] = [];
  for (const c of sorted) {
    if (out.length >= count) break;
    const s = frames[c[0]]!.source;
    if (out.every(([j]) => Math.abs(frames[j]!.source - s) > DISTINCT)) out.push(c);
  }
  return out;
}

/** Up to ESCAPES of the cheapest jumps above the limit from stretch end i, other stretches first. */
function escapes(
  frames: readonly GraphFrame[],
  i: number,
  cands: readonly Candidate[],
  seamless: number,
): Candidate[] {
  if (seamless >= ESCAPES) return [];
  let start = i;
  while (start > 0 && frames[start - 1]!.source === frames[start]!.source - 1) start--;
  const own = (j: number): boolean => j >= start && j <= i;
  const above = cands
    .filter(([, c, full]) => c > 1 || !full)
    .map(([j, c]): Candidate => [j, Math.max(c, 1.01), false]);
  const ordered = [...above.filter(([j]) => !own(j)), ...above.filter(([j]) => own(j))];
  return ordered.slice(0, ESCAPES - seamless);
}

/** A jump's target, its windowed distance (or cost), and whether all taps compared. */
type Candidate = [number, number, boolean];

/** Each frame's candidate jumps into a set, cheapest first, with their windowed distances. */
function candidates(frames: readonly GraphFrame[], d: Float32Array, set: readonly boolean[]): Candidate[][] {
  const n = frames.length;
  return frames.map((f, i) => {
    const cands: Candidate[] = [];
    for (let j = 0; j < n; j++)
      if (set[j] && Math.abs(frames[j]!.source - f.source - 1) >= MIN_SKIP)
        cands.push([j, ...jumpDistance(frames, d, i, j)]);
    return cands.sort((a, b) => a[1] - b[1]);
  });
}

/** The longest run of consecutive frames of a stretch with no jump of cost ≤ 1. */
function longestGap(frames: readonly GraphFrame[], cost: readonly number[][]): number {
  let worst = 0;
  let run = 0;
  frames.forEach((f, i) => {
    if (i > 0 && frames[i - 1]!.source !== f.source - 1) run = 0;
    run = cost[i]!.some((c) => c <= 1) ? 0 : run + 1;
    worst = Math.max(worst, run);
  });
  return worst;
}

/**
 * The graph over `frames` (in pool order), with the jumps into `idle` and `speech` frames kept
 * apart so the walk can always change between them where they meet. The limit is the clip's
 * STEP_QUANTILES[0] frame-to-frame distance, or the next quantile while some stretch would go
 * longer than MAX_GAP frames without a seamless jump (footage whose poses rarely recur).
 */
export function buildJumpGraph(
  frames: readonly GraphFrame[],
  sets: { idle: readonly boolean[]; speech: readonly boolean[] },
): JumpGraph {
  const n = frames.length;
  const d = frameDistances(frames);
  const steps: number[] = [];
  for (let i = 0; i + 1 < n; i++) if (along(frames, i, 1) >= 0) steps.push(d[i * n + i + 1]!);
  const bySet = [sets.idle, sets.speech].map((set) => ({ set, cands: candidates(frames, d, set) }));
  let graph: JumpGraph | undefined;
  for (const q of STEP_QUANTILES) {
    graph = withLimit(frames, bySet, Math.max(JUMP_FLOOR, quantile(steps, q)));
    if (longestGap(frames, graph.cost) <= MAX_GAP) break;
  }
  return graph!;
}

function withLimit(
  frames: readonly GraphFrame[],
  bySet: ReadonlyArray<{ set: readonly boolean[]; cands: Candidate[][] }>,
  limit: number,
): JumpGraph {
  const jumps: number[][] = [];
  const cost: number[][] = [];
  frames.forEach((_, i) => {
    const end = along(frames, i, 1) < 0;
    const kept = new Map<number, number>();
    for (const { set, cands } of bySet) {
      const scaled = cands[i]!.map(([j, v, full]): Candidate => [j, v / limit, full]);
      const good = distinct(
        frames,
        scaled.filter(([, c, full]) => full && c <= 1),
        JUMPS_PER_SET,
      );
      // a stretch's last frame always keeps ways on within its own set, into other stretches
      // first (a jump back into its own stretch alone would make a loop of it)
      if (end && set[i]) good.push(...escapes(frames, i, scaled, good.length));
      for (const [j, c] of good) kept.set(j, Math.round(c * 100) / 100);
    }
    const sorted = [...kept].sort((a, b) => a[1] - b[1]);
    jumps.push(sorted.map(([j]) => j));
    cost.push(sorted.map(([, c]) => c));
  });
  return { jumps, cost, limit: Math.round(limit * 1000) / 1000 };
}
