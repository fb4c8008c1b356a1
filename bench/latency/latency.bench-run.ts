/**
 * Latency at a real browser (headless Chromium, loopback in a network namespace), for say-text
 * utterances of varied length, say-audio uploads, and streamed turns (word chunks, then the final
 * chunk): request sent → first received audio above the floor (WebAudio analyser, and the audio
 * receiver's own playout log), → first mouth opening in the received frames, → speakingStart on
 * the events channel. Each utterance is interrupted once
 * measured. Prints a table and one JSON line; never fails on a figure.
 */
import { it } from 'vitest';
import {
  AUDIO_FLOOR,
  leaves,
  onset,
  openAvSession,
  speechWav,
  wait,
  type AvSession,
} from '../lib/av-session.js';
import { fmt, quantile, report, row, smoke } from '../lib/measure.js';

const ROUNDS = smoke ? 2 : Number(process.env['BENCH_ROUNDS'] ?? 30);
const TEXTS = [
  'Hello.',
  'Hi there, how are you?',
  'Papa bought a big bag.',
  'Your order shipped this morning.',
  'Thanks for waiting, I found the answer you asked for.',
  'Sure.',
  'Let me check that for you right away.',
  'Everything looks fine on our side, so please try again in a minute.',
  'Good afternoon and welcome back.',
  'No problem at all.',
];

interface Sample {
  audio: number;
  playout: number;
  moved: number;
  mouth: number;
  start: number;
}

async function measureOne(s: AvSession, send: () => Promise<number>): Promise<Sample> {
  const t0 = await send();
  let logs = await s.logs(t0);
  for (let i = 0; i < 40; i++) {
    const a = onset(logs.audio, t0, AUDIO_FLOOR);
    const m = onset(logs.frames, t0, s.openAbove);
    if (!Number.isNaN(a) && !Number.isNaN(m)) break;
    await wait(100);
    logs = await s.logs(t0);
  }
  const start = logs.events.find((e) => e.type === 'speakingStart');
  const sample = {
    audio: onset(logs.audio, t0, AUDIO_FLOOR) - t0,
    playout: onset(logs.playout, t0, AUDIO_FLOOR) - t0,
    moved: leaves(logs.frames, t0, s.moveBelow, s.moveAbove) - t0,
    mouth: onset(logs.frames, t0, s.openAbove) - t0,
    start: start ? start.at - t0 : NaN,
  };
  await s.settle();
  await wait(200);
  return sample;
}

it('measures', async () => {
  const s = await openAvSession();
  const { wav, durationSec } = speechWav();
  const results: Record<string, Sample[]> = {
    'say-text': [],
    'say-audio': [],
    'streamed turn (final chunk)': [],
  };
  try {
    for (let i = 0; i < ROUNDS; i++) {
      results['say-text']!.push(await measureOne(s, () => s.sayText(TEXTS[i % TEXTS.length]!, `t${i}`)));
      results['say-audio']!.push(await measureOne(s, () => s.sayAudio(wav, `a${i}`, durationSec)));
      results['streamed turn (final chunk)']!.push(
        await measureOne(s, async () => {
          const words = TEXTS[(i + 4) % TEXTS.length]!.split(' ');
          for (const w of words.slice(0, -1)) await s.sayText(`${w} `, `w${i}`, false);
          return s.sayText(words.at(-1)!, `w${i}`, true);
        }),
      );
    }
  } finally {
    await s.close();
  }
  report(
    `latency benchmark: ${ROUNDS} utterances per kind, 512x512@25, Chromium, loopback in a network namespace`,
  );
  report(row('from request sent to', ['p50', 'p95', 'max', 'n'], 46, 8) + '   (ms)');
  const json: Record<string, unknown> = {};
  for (const [kind, xs] of Object.entries(results)) {
    for (const [label, key] of [
      ['first received audio (analyser)', 'audio'],
      ['first audio played out (receiver)', 'playout'],
      ['first mouth movement in received frames', 'moved'],
      ['first mouth opening in received frames', 'mouth'],
      ['speakingStart event', 'start'],
    ] as const) {
      const v = xs.map((x) => x[key]).filter(Number.isFinite);
      report(
        row(
          `${kind}: ${label}`,
          [fmt(quantile(v, 0.5)), fmt(quantile(v, 0.95)), fmt(Math.max(...v)), v.length],
          46,
          8,
        ),
      );
      json[`${kind.split(' ')[0]}.${key}`] = {
        p50: +quantile(v, 0.5).toFixed(1),
        p95: +quantile(v, 0.95).toFixed(1),
        max: +Math.max(...v).toFixed(1),
        n: v.length,
      };
    }
  }
  report(JSON.stringify({ bench: 'latency', smoke, rounds: ROUNDS, floor: AUDIO_FLOOR, ms: json }));
});
