/**
 * A/V sync in the received stream: for utterances with a plosive onset ("Papa bought a big bag."),
 * the offset between the first mouth opening in the received frames (display time) and the audio
 * onset at the browser (analyser), in ms; + means the audio is early. Target +20/−40 ms (docs/design.md §9).
 * Frames are 40 ms apart, so one reading is quantised; the mean over the utterances is the figure.
 */
import { it } from 'vitest';
import { AUDIO_FLOOR, onset, openAvSession, wait } from '../lib/av-session.js';
import { fmt, mean, quantile, report, row, smoke, stdev } from '../lib/measure.js';

const ROUNDS = smoke ? 2 : 30;
const TEXT = 'Papa bought a big bag.';

it('measures', async () => {
  const s = await openAvSession();
  const offsets: number[] = [];
  const playoutOffsets: number[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = await s.sayText(TEXT, `p${i}`);
      let a = NaN;
      let m = NaN;
      let po = NaN;
      for (let k = 0; k < 40 && (Number.isNaN(a) || Number.isNaN(m) || Number.isNaN(po)); k++) {
        await wait(100);
        const logs = await s.logs(t0);
        a = onset(logs.audio, t0, AUDIO_FLOOR);
        po = onset(logs.playout, t0, AUDIO_FLOOR);
        m = onset(logs.frames, t0, s.openAbove);
      }
      offsets.push(m - a);
      playoutOffsets.push(m - po);
      await wait(1800); // let the sentence finish: the next one starts from rest
      await s.settle();
      await wait(300);
    }
  } finally {
    await s.close();
  }
  const v = offsets.filter(Number.isFinite);
  const vp = playoutOffsets.filter(Number.isFinite);
  const within = v.filter((x) => x <= 20 && x >= -40).length;
  const summary = (xs: number[]) => ({
    mean: +mean(xs).toFixed(1),
    sd: +stdev(xs).toFixed(1),
    p50: +quantile(xs, 0.5).toFixed(1),
    min: +Math.min(...xs).toFixed(1),
    max: +Math.max(...xs).toFixed(1),
    n: xs.length,
  });
  const [analyser, playout] = [summary(v), summary(vp)];
  report(
    `avsync benchmark: ${ROUNDS} × "${TEXT}", mouth opening in received frames vs audio onset, Chromium`,
  );
  report(row('offset (+ = audio early), ms', ['mean', 'sd', 'p50', 'min', 'max', 'n'], 32, 8));
  for (const [label, x] of [
    ['mouth opening − audio onset', analyser],
    ['mouth opening − audio playout', playout],
  ] as const)
    report(row(label, [fmt(x.mean), fmt(x.sd), fmt(x.p50), fmt(x.min), fmt(x.max), x.n], 32, 8));
  report(`utterances within +20/-40 ms: ${within}/${v.length}; target: mean within +20/-40 ms`);
  report(
    JSON.stringify({
      bench: 'avsync',
      smoke,
      rounds: ROUNDS,
      offsetMs: analyser,
      withinTarget: within,
      playoutOffsetMs: playout,
    }),
  );
});
