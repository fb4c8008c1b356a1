import { describe, expect, it } from 'vitest';
import { VideoImportError } from './import-errors.js';
import type { LostReason } from './track-clip.js';
import { lostShares, refuseUnusable } from './track-refusal.js';

/** `n` frames of each kind: usable, or lost for a reason. */
function clip(
  kinds: Partial<Record<LostReason | 'ok', number>>,
): Array<{ valid: boolean; lost?: LostReason }> {
  return Object.entries(kinds).flatMap(([kind, n]) =>
    Array.from({ length: n }, () =>
      kind === 'ok' ? { valid: true } : { valid: false, lost: kind as LostReason },
    ),
  );
}

function refusal(frames: ReturnType<typeof clip>): VideoImportError {
  try {
    refuseUnusable(frames);
  } catch (err) {
    return err as VideoImportError;
  }
  throw new Error('not refused');
}

describe('refusing a clip whose face is not usable', () => {
  it('names the biggest reason first, with each share of the frames', () => {
    const err = refusal(clip({ ok: 24, covered: 70, turned: 6 }));
    expect(err).toBeInstanceOf(VideoImportError);
    expect(err.code).toBe('face_covered');
    expect(err.message).toMatch(
      /^The face is covered in 70 % of the frames, turned away in 6 %; at least 50 %/,
    );
    expect(err.message).toMatch(/hands, hair and objects off the mouth and chin/);
  });

  it('says turned away or out of view when that is most of what was lost', () => {
    const err = refusal(clip({ ok: 30, covered: 10, unseen: 45, turned: 15 }));
    expect(err.code).toBe('face_away');
    expect(err.message).toMatch(
      /^The face is out of view or not recognisable in 45 % of the frames, turned away in 15 %, covered in 10 %;/,
    );
  });

  it('takes a clip with half of its frames usable, and leaves out shares under 1 %', () => {
    expect(() => refuseUnusable(clip({ ok: 50, covered: 50 }))).not.toThrow();
    expect(lostShares(clip({ ok: 995, turned: 5, unseen: 200 }))).toEqual([['unseen', 200 / 1200]]);
  });
});
