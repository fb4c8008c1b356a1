/**
 * Interrupt at a real browser: while a long sentence is sounding, interrupt request sent →
 * received audio below the floor (and staying there 100 ms), → mouth at rest in the received frames
 * (and staying there 3 frames), → speakingEnd(interrupted) event; plus the request's round trip.
 * Prints a table and one JSON line; never fails on a figure.
 */
import { it } from 'vitest';
import { AUDIO_FLOOR, onset, openAvSession, sustained, wait } from '../lib/av-session.js';
import { fmt, quantile, report, row, smoke } from '../lib/measure.js';

const ROUNDS = smoke ? 2 : 20;
const LONG =
  'This sentence is long enough to still be playing when the interrupt arrives, so keep on talking for a while.';

it('measures', async () => {
  const s = await openAvSession();
  const silence: number[] = [];
  const rest: number[] = [];
  const ended: number[] = [];
  const rtt: number[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = await s.sayText(LONG, `i${i}`);
      for (let k = 0; k < 50; k++) {
        await wait(100);
        const a = onset((await s.logs(t0)).audio, t0, AUDIO_FLOOR);
        if (!Number.isNaN(a)) break;
      }
      await wait(500 + ((i * 137) % 400)); // interrupt at varied points of the sentence
      const before = await s.page.evaluate(() => performance.now());
      const t1 = await s.interrupt();
      rtt.push((await s.page.evaluate(() => performance.now())) - before);
      await wait(1200);
      const logs = await s.logs(t1);
      silence.push(sustained(logs.audio, t1, (v) => v < AUDIO_FLOOR / 2, 100) - t1);
      // at rest: the mouth box back to idle for 3 consecutive frames (120 ms)
      rest.push(sustained(logs.frames, t1, (v) => v <= s.restAtMost, 80) - t1);
      const end = logs.events.find((e) => e.type === 'speakingEnd');
      ended.push(end ? end.at - t1 : NaN);
      await wait(300);
    }
  } finally {
    await s.close();
  }
  report(
    `interrupt benchmark: ${ROUNDS} interrupts mid-sentence, 512x512@25, Chromium, loopback in a network namespace`,
  );
  report(row('from interrupt request sent to', ['p50', 'p95', 'max', 'n'], 44, 8) + '   (ms)');
  const json: Record<string, unknown> = {};
  for (const [label, key, xs] of [
    ['received audio below the floor', 'silence', silence],
    ['mouth at rest in received frames', 'mouthRest', rest],
    ['speakingEnd(interrupted) event', 'speakingEnd', ended],
    ['interrupt request round trip', 'requestRtt', rtt],
  ] as const) {
    const v = xs.filter(Number.isFinite);
    report(row(label, [fmt(quantile(v, 0.5)), fmt(quantile(v, 0.95)), fmt(Math.max(...v)), v.length], 44, 8));
    json[key] = {
      p50: +quantile(v, 0.5).toFixed(1),
      p95: +quantile(v, 0.95).toFixed(1),
      max: +Math.max(...v).toFixed(1),
      n: v.length,
    };
  }
  report(JSON.stringify({ bench: 'interrupt', smoke, rounds: ROUNDS, ms: json }));
});
