/**
 * The import's one pass over the whole clip: every frame (cropped square around the face and
 * scaled to framePx by ffmpeg) gets its landmarks by tracking, smoothed by a One-Euro filter; its
 * similarity to the canonical frame; a grey thumbnail (to find a loop point later); and, for the
 * frames the mouth library keeps, the canonical lower-face crop. The tiny detector checks once a
 * second that the tracked face is really there (and alone); a lost face is found again.
 */
import { decodeFrames, type FrameSource } from './ffmpeg.js';
import { detectBoxesTiny, landmarksIn, trackingBox, type Landmarks, type RgbFrame } from './face-tracker.js';
import type { FacePlan } from './find-face.js';
import { VIDEO_LIMITS } from './import-errors.js';
import { OneEuroFilter } from './one-euro.js';
import { STABLE_LANDMARKS, fitSimilarity, type Similarity } from './pack.js';
import { extractCrop, thumbnail } from './pixels.js';

/**
 * Why a frame is not used: `covered` — the face is tracked but its mouth is not to be seen (a
 * hand, hair or an object over it: video/mouth-cover.ts); `turned` — the landmarks fail the
 * frontal or size test; `unseen` — the detector sees no face where it was tracked, or none is
 * found at all (out of view, or covered beyond recognition).
 */
export type LostReason = 'covered' | 'turned' | 'unseen';

export interface TrackedFrame {
  /** Tracked, frontal, confirmed by the detector's checks. */
  valid: boolean;
  /** Why it is not valid. */
  lost?: LostReason;
  /** Smoothed landmarks in frame pixels (empty when not valid). */
  landmarks: Landmarks;
  toFrame: Similarity;
  thumb: Uint8Array;
  /** The canonical lower-face crop (I420), for frames the library keeps. */
  crop?: Uint8Array;
}

export interface TrackResult {
  frames: TrackedFrame[];
  /** Detector checks that saw more than one face, and all checks. */
  multiFaceChecks: number;
  checks: number;
  stride: number;
  /** Why frames were not tracked: checks that found no face where tracking was, frames whose landmarks failed the frontal or size test, frames where no face was found. */
  lost: { checks: number; shape: number; missing: number };
}

const CHECK_EVERY = 25;
const SEARCH_EVERY = 5;
const IDENTITY: Similarity = [1, 0, 0, 0];

const jawWidth = (lm: Landmarks): number => Math.hypot(lm[16]![0] - lm[0]![0], lm[16]![1] - lm[0]![1]);

/** Nose tip to each jaw side, along the eyes' axis: about 1 for a frontal face. */
function frontal(lm: Landmarks): boolean {
  const ex = lm[45]![0] - lm[36]![0];
  const ey = lm[45]![1] - lm[36]![1];
  const n = Math.hypot(ex, ey) || 1;
  const along = (i: number): number => ((lm[i]![0] - lm[30]![0]) * ex + (lm[i]![1] - lm[30]![1]) * ey) / n;
  const left = -along(0);
  const right = along(16);
  if (left <= 0 || right <= 0) return false;
  const ratio = left / right;
  return ratio > 0.4 && ratio < 2.5;
}

function overlaps(a: { x: number; y: number; width: number; height: number }, lm: Landmarks): boolean {
  const b = trackingBox(lm);
  const ix = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x));
  const iy = Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
  const inter = ix * iy;
  return inter / (a.width * a.height + b.width * b.height - inter) > 0.25;
}

/** Copies the part of a frame inside a box (clamped to the frame). */
function cropFrame(
  f: RgbFrame,
  box: { x: number; y: number; width: number; height: number },
): RgbFrame & { x: number; y: number } {
  const x0 = Math.max(0, Math.floor(box.x));
  const y0 = Math.max(0, Math.floor(box.y));
  const x1 = Math.min(f.width, Math.ceil(box.x + box.width));
  const y1 = Math.min(f.height, Math.ceil(box.y + box.height));
  const width = Math.max(1, x1 - x0);
  const height = Math.max(1, y1 - y0);
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++)
    rgb.set(
      f.rgb.subarray(((y0 + y) * f.width + x0) * 3, ((y0 + y) * f.width + x0 + width) * 3),
      y * width * 3,
    );
  return { rgb, width, height, x: x0, y: y0 };
}

/**
 * A second look when the whole-frame check found no face where tracking is: the detector again on
 * a square twice the tracked face's size around it, where the face fills more of its input.
 */
async function confirm(f: RgbFrame, lm: Landmarks): Promise<boolean> {
  const t = trackingBox(lm);
  const near = cropFrame(f, {
    x: t.x - t.width / 2,
    y: t.y - t.height / 2,
    width: t.width * 2,
    height: t.height * 2,
  });
  const boxes = await detectBoxesTiny(near, 224);
  return boxes.some((b) => overlaps({ ...b.box, x: b.box.x + near.x, y: b.box.y + near.y }, lm));
}

export async function trackClip(
  file: string,
  clip: FrameSource,
  plan: FacePlan,
  box: { x: number; y: number; width: number; height: number },
  expectedFrames: number,
  onProgress: (fraction: number) => void,
): Promise<TrackResult> {
  const size = VIDEO_LIMITS.framePx;
  const stride = Math.max(1, Math.ceil(expectedFrames / VIDEO_LIMITS.maxLibrary));
  const refJaw = jawWidth(plan.reference);
  const refStable = STABLE_LANDMARKS.map((i) => plan.reference[i]!);
  // eyes and nose (placement) still; the rest (the mouth) follows fast
  const still = new OneEuroFilter(VIDEO_LIMITS.fps, { minCutoffHz: 1.2, beta: 0.02 });
  const moving = new OneEuroFilter(VIDEO_LIMITS.fps, { minCutoffHz: 5, beta: 0.05 });
  const frames: TrackedFrame[] = [];
  let previous: Landmarks | undefined;
  let lastCheck = 0;
  let lastSearch = -SEARCH_EVERY;
  let checks = 0;
  let multiFaceChecks = 0;
  const lost = { checks: 0, shape: 0, missing: 0 };

  const find = async (f: RgbFrame): Promise<Landmarks | undefined> => {
    const boxes = await detectBoxesTiny(f);
    const best = boxes.sort((a, b) => b.score - a.score)[0];
    if (!best) return undefined;
    const side = Math.max(best.box.width, best.box.height) * 1.1;
    const sq = {
      x: best.box.x + best.box.width / 2 - side / 2,
      y: best.box.y + best.box.height / 2 - side / 2,
      width: side,
      height: side,
    };
    const first = await landmarksIn(f, sq);
    return landmarksIn(f, trackingBox(first));
  };

  const lose = (from: number, reason: LostReason): void => {
    for (let k = from; k < frames.length; k++) {
      const t = frames[k]!;
      if (t.valid) t.lost = reason;
      t.valid = false;
      delete t.crop;
    }
    previous = undefined;
    still.reset();
    moving.reset();
  };

  await decodeFrames(
    file,
    { fps: VIDEO_LIMITS.fps, crop: plan.crop, size, clip },
    async (rgb, i) => {
      const f: RgbFrame = { rgb, width: size, height: size };
      if (i % CHECK_EVERY === 0) {
        checks++;
        const boxes = await detectBoxesTiny(f);
        if (boxes.length > 1) multiFaceChecks++;
        if (previous && !boxes.some((b) => overlaps(b.box, previous!)) && !(await confirm(f, previous))) {
          lost.checks++;
          lose(lastCheck, 'unseen');
        }
        lastCheck = i;
      }
      // while the face is away, it is looked for every SEARCH_EVERY frames (a detection costs 4 tracked frames)
      const search = !previous && i - lastSearch >= SEARCH_EVERY;
      if (search) lastSearch = i;
      let lm = previous ? await landmarksIn(f, trackingBox(previous)) : search ? await find(f) : undefined;
      let reason: LostReason = 'unseen';
      if (!lm) lost.missing++;
      else if (!frontal(lm) || Math.abs(jawWidth(lm) / refJaw - 1) > 0.35) {
        lost.shape++;
        lm = undefined;
        reason = 'turned';
      }
      const thumb = thumbnail(rgb, size);
      if (!lm) {
        if (previous) lose(frames.length, reason);
        frames.push({ valid: false, lost: reason, landmarks: [], toFrame: IDENTITY, thumb });
        return;
      }
      previous = lm;
      const flat = lm.flat();
      const s = still.next(flat);
      const m = moving.next(flat);
      const stableSet = new Set<number>(STABLE_LANDMARKS);
      const smooth: Landmarks = lm.map((_, k) =>
        stableSet.has(k) ? [s[k * 2]!, s[k * 2 + 1]!] : [m[k * 2]!, m[k * 2 + 1]!],
      );
      const toFrame = fitSimilarity(
        refStable,
        STABLE_LANDMARKS.map((k) => smooth[k]!),
      );
      const t: TrackedFrame = { valid: true, landmarks: smooth, toFrame, thumb };
      if (i % stride === 0) t.crop = extractCrop(rgb, size, size, toFrame, box);
      frames.push(t);
      if (i % CHECK_EVERY === 0) onProgress(Math.min(1, i / expectedFrames));
    },
    { width: size, height: size },
  );
  return { frames, multiFaceChecks, checks, stride, lost };
}
