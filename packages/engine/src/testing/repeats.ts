/**
 * How long the longest repeat in a sequence of shown base frames is (render/base-walk.ts): the
 * longest run ending at some time t equal, frame for frame, to a run ending at an earlier time s
 * at most `horizon` frames before t. A walk that repeats no 2 s within 30 s has a longest repeat
 * under 2 s of frames with a horizon of 30 s. `same` tells equal frames (default: the same index;
 * footage within a few source frames counts a replay shifted by a frame or two); `minApart`: the
 * earlier run ends at least this many frames before (with a loose `same`, a run would otherwise
 * match itself a frame later).
 */
export function longestRepeat(
  shown: readonly number[],
  horizon: number,
  same: (a: number, b: number) => boolean = (a, b) => a === b,
  minApart = 1,
): number {
  let worst = 0;
  for (let t = 1; t < shown.length; t++)
    for (let s = Math.max(0, t - horizon); s <= t - minApart; s++) {
      let n = 0;
      while (n <= s && same(shown[t - n]!, shown[s - n]!)) n++;
      worst = Math.max(worst, n);
    }
  return worst;
}
