/**
 * A/V sync as the viewer sees it: for utterances with a plosive onset ("Papa bought a big bag."),
 * the offset between the first mouth opening and the audio onset at the browser (a WebAudio
 * analyser, and the receiver's playout log), in ms; + means the audio is early. Target +20/−40 ms
 * (docs/design.md §9). Two rows in one run: `video`, the mouth in the received video frames at
 * their display time; `client`, the SDK's `render: 'client'` canvas read on every display refresh
 * (bench/lib/av-client-session.ts). The analyser and the playout log both hear the audio before the
 * output device; the third figure per mode, "heard", adds the device delay the browser reports
 * (media-playout stats), which the SDK's frame clock also adds. Frames are 40 ms apart, so one reading is quantised; the mean
 * over the utterances is the figure.
 */
import { it } from 'vitest';
import { openClientAvSession, type AvSyncSession } from '../lib/av-client-session.js';
import { AUDIO_FLOOR, onset, openAvSession, wait } from '../lib/av-session.js';
import { fmt, mean, quantile, report, row, smoke, stdev } from '../lib/measure.js';

const ROUNDS = smoke ? 2 : 30;
const TEXT = 'Papa bought a big bag.';

interface Summary {
  mean: number;
  sd: number;
  p50: number;
  min: number;
  max: number;
  n: number;
}

const summary = (xs: number[]): Summary => ({
  mean: +mean(xs).toFixed(1),
  sd: +stdev(xs).toFixed(1),
  p50: +quantile(xs, 0.5).toFixed(1),
  min: +Math.min(...xs).toFixed(1),
  max: +Math.max(...xs).toFixed(1),
  n: xs.length,
});

interface ModeResult {
  offsetMs: Summary;
  playoutOffsetMs: Summary;
  heardOffsetMs: Summary;
  withinTarget: number;
  heardWithinTarget: number;
  outputDelayMs?: number;
  refreshMs?: number;
}

/** ROUNDS utterances on one session: mouth opening − audio onset (analyser, playout) each. */
async function measure(s: AvSyncSession): Promise<ModeResult> {
  const offsets: number[] = [];
  const playoutOffsets: number[] = [];
  const heardOffsets: number[] = [];
  const delays: number[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = await s.sayText(TEXT, `p${i}`);
      let a = NaN;
      let m = NaN;
      let po = NaN;
      let delay: number | undefined;
      for (let k = 0; k < 40 && (Number.isNaN(a) || Number.isNaN(m) || Number.isNaN(po)); k++) {
        await wait(100);
        const logs = await s.logs(t0);
        a = onset(logs.audio, t0, AUDIO_FLOOR);
        po = onset(logs.playout, t0, AUDIO_FLOOR);
        m = onset(logs.frames, t0, s.openAbove);
        delay = logs.outputDelayMs;
      }
      offsets.push(m - a);
      playoutOffsets.push(m - po);
      if (delay !== undefined) {
        delays.push(delay);
        heardOffsets.push(m - (a + delay));
      }
      await wait(1800); // let the sentence finish: the next one starts from rest
      await s.settle();
      await wait(300);
    }
    const v = offsets.filter(Number.isFinite);
    const heard = heardOffsets.filter(Number.isFinite);
    const within = (xs: number[]): number => xs.filter((x) => x <= 20 && x >= -40).length;
    const refreshMs = await s.refreshMs();
    return {
      offsetMs: summary(v),
      playoutOffsetMs: summary(playoutOffsets.filter(Number.isFinite)),
      heardOffsetMs: summary(heard),
      withinTarget: within(v),
      heardWithinTarget: within(heard),
      ...(delays.length ? { outputDelayMs: +mean(delays).toFixed(1) } : {}),
      ...(refreshMs === undefined ? {} : { refreshMs: +refreshMs.toFixed(1) }),
    };
  } finally {
    await s.close();
  }
}

it('measures', async () => {
  const video = await measure(
    await openAvSession().then((s) => ({ ...s, refreshMs: async () => undefined })),
  );
  const client = await measure(await openClientAvSession());
  report(
    `avsync benchmark: ${ROUNDS} × "${TEXT}" per mode, mouth opening (video: received frames; client: the SDK's canvas) vs audio onset, Chromium`,
  );
  report(row('offset (+ = audio early), ms', ['mean', 'sd', 'p50', 'min', 'max', 'n', 'within'], 40, 8));
  for (const [mode, r] of [
    ['video', video],
    ['client', client],
  ] as const)
    for (const [label, x] of [
      [`${mode}: mouth opening − audio onset`, r.offsetMs],
      [`${mode}: mouth opening − audio playout`, r.playoutOffsetMs],
      [`${mode}: mouth opening − audio heard`, r.heardOffsetMs],
    ] as const)
      report(
        row(
          label,
          [
            fmt(x.mean),
            fmt(x.sd),
            fmt(x.p50),
            fmt(x.min),
            fmt(x.max),
            x.n,
            x === r.offsetMs
              ? `${r.withinTarget}/${x.n}`
              : x === r.heardOffsetMs
                ? `${r.heardWithinTarget}/${x.n}`
                : '',
          ],
          40,
          8,
        ),
      );
  report(
    `target: mean within +20/-40 ms ("within": utterances inside it); heard = onset + the output delay the browser reports (video ${video.outputDelayMs ?? '?'} ms, client ${client.outputDelayMs ?? '?'} ms); client canvas read per display refresh of ${client.refreshMs ?? '?'} ms`,
  );
  report(JSON.stringify({ bench: 'avsync', smoke, rounds: ROUNDS, video, client }));
});
