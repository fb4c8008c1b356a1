/**
 * The import's verdict on a tracked clip: too few usable frames refuse it, naming why the others
 * could not be used and how many there were of each ("The face is covered in 70 % of the frames,
 * turned away in 6 %; …"), covered faces with their own code (face_covered), the rest face_away.
 */
import { VIDEO_LIMITS, VideoImportError } from './import-errors.js';
import type { LostReason, TrackedFrame } from './track-clip.js';

const WORDS: Record<LostReason, string> = {
  covered: 'covered',
  turned: 'turned away',
  unseen: 'out of view or not recognisable',
};

/** Each reason's share of the frames, largest first (shares under 1 % left out). */
export function lostShares(
  frames: ReadonlyArray<Pick<TrackedFrame, 'valid' | 'lost'>>,
): Array<[LostReason, number]> {
  const counts: Record<LostReason, number> = { covered: 0, turned: 0, unseen: 0 };
  for (const f of frames) if (!f.valid) counts[f.lost ?? 'unseen']++;
  const n = Math.max(1, frames.length);
  return (Object.entries(counts) as Array<[LostReason, number]>)
    .map(([r, c]): [LostReason, number] => [r, c / n])
    .filter(([, share]) => share >= 0.01)
    .sort((a, b) => b[1] - a[1]);
}

/** Throws face_covered or face_away when under VIDEO_LIMITS.minTrackedFraction of the frames are usable. */
export function refuseUnusable(frames: ReadonlyArray<Pick<TrackedFrame, 'valid' | 'lost'>>): void {
  const valid = frames.filter((f) => f.valid).length;
  if (valid >= frames.length * VIDEO_LIMITS.minTrackedFraction) return;
  const shares = lostShares(frames);
  const percent = (s: number): string => `${Math.round(s * 100)} %`;
  const parts = shares.map(([r, s], k) => `${WORDS[r]} in ${percent(s)}${k === 0 ? ' of the frames' : ''}`);
  const covered = shares[0]?.[0] === 'covered';
  throw new VideoImportError(
    covered ? 'face_covered' : 'face_away',
    `The face is ${parts.join(', ') || 'not usable in most of the frames'}; at least ${percent(VIDEO_LIMITS.minTrackedFraction)} of the clip must show the whole face facing the camera (${covered ? 'keep hands, hair and objects off the mouth and chin' : 'face the camera and stay in the picture'})`,
  );
}
