/**
 * How long the longest repeat in a sequence of shown base frames is (render/base-walk.ts): the
 * longest run ending at some time t equal, frame for frame, to a run ending at an earlier time s
 * at most `horizon` frames before t. A walk that repeats no 2 s within 30 s has a longest repeat
 * under 2 s of frames with a horizon of 30 s.
 */
export function longestRepeat(shown: readonly number[], horizon: number): number {
  let worst = 0;
  for (let t = 1; t < shown.length; t++)
    for (let s = Math.max(0, t - horizon); s < t; s++) {
      let n = 0;
      while (n <= s && shown[t - n] === shown[s - n]) n++;
      worst = Math.max(worst, n);
    }
  return worst;
}
