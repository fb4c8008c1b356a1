/**
 * Latency at a real browser (headless Chromium, loopback in a network namespace), for say-text
 * utterances of varied length, say-audio uploads, and streamed turns (word chunks, then the final
 * chunk): request sent → first received audio above the floor (WebAudio analyser, and the audio
 * receiver's own playout log), → first mouth opening in the received frames, → speakingStart on
 * the events channel. Each utterance is interrupted once
 * measured. Provider rows: the same say-text utterances spoken by stand-ins of the OpenAI and
 * ElevenLabs APIs whose first byte comes T ms after the request (BENCH_PROVIDER_DELAY_MS, default
 * 200), so first audio − T is what Mouthpiece adds; and by the embedded Flite voice; and, with
 * `-- --local-voice DIR` (BENCH_LOCAL_VOICE), by that local neural voice, whose real-time factor
 * (synthesis time / speech time, per sentence, in its child process) is measured too. Prints a
 * table and one JSON line; never fails on a figure.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { localRealTimeFactor } from '../lib/local-voice.js';
import { elevenLabsStandin, openAiStandin } from '../../packages/engine/dist/testing/voice-standins.js';
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
import { openClientAvSession } from '../lib/av-client-session.js';
import { fmt, quantile, report, row, smoke } from '../lib/measure.js';
import { delaysMs, engineCounters, engineDelta, reportDelays, snapshot } from './receiver-delays.js';

const ROUNDS = smoke ? 2 : Number(process.env['BENCH_ROUNDS'] ?? 30);
const PROVIDER_DELAY_MS = Number(process.env['BENCH_PROVIDER_DELAY_MS'] ?? 200);
/** A local neural voice's model folder (`-- --local-voice DIR`): its row and real-time factor. */
const LOCAL_VOICE = process.env['BENCH_LOCAL_VOICE'];
/** BENCH_SAY_TEXT_ONLY=1: only the video session's say-text rounds (a few minutes, to iterate). */
const SAY_TEXT_ONLY = process.env['BENCH_SAY_TEXT_ONLY'] === '1';
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

/** A watched session: the video page's, or the SDK drawing the avatar (no mouth-movement bounds). */
type Watched = Pick<AvSession, 'logs' | 'openAbove' | 'settle'> &
  Partial<Pick<AvSession, 'moveBelow' | 'moveAbove'>>;

async function measureOne(s: Watched, send: () => Promise<number>): Promise<Sample> {
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
    moved:
      s.moveBelow === undefined || s.moveAbove === undefined
        ? NaN
        : leaves(logs.frames, t0, s.moveBelow, s.moveAbove) - t0,
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
  let delays: Record<string, number> = {};
  try {
    const before = await snapshot(s.page);
    const engine0 = await engineCounters(s.server.url);
    for (let i = 0; i < ROUNDS; i++) {
      results['say-text']!.push(await measureOne(s, () => s.sayText(TEXTS[i % TEXTS.length]!, `t${i}`)));
      if (SAY_TEXT_ONLY) continue;
      results['say-audio']!.push(await measureOne(s, () => s.sayAudio(wav, `a${i}`, durationSec)));
      results['streamed turn (final chunk)']!.push(
        await measureOne(s, async () => {
          const words = TEXTS[(i + 4) % TEXTS.length]!.split(' ');
          for (const w of words.slice(0, -1)) await s.sayText(`${w} `, `w${i}`, false);
          return s.sayText(words.at(-1)!, `w${i}`, true);
        }),
      );
    }
    delays = delaysMs(before, await snapshot(s.page));
    await wait(5000); // the engine's counters reach /metrics at its next health ping
    Object.assign(delays, engineDelta(engine0, await engineCounters(s.server.url)));
  } finally {
    await s.close();
  }
  // the same say-text utterances to the SDK in render: 'client' (Opus in 40 ms packets, the mouth
  // on its canvas: docs/design.md §13.8)
  if (SAY_TEXT_ONLY) {
    delete results['say-audio'];
    delete results['streamed turn (final chunk)'];
  }
  if (!SAY_TEXT_ONLY) {
    const c = await openClientAvSession();
    const xs: Sample[] = (results['say-text, client rendering'] = []);
    try {
      for (let i = 0; i < ROUNDS; i++)
        xs.push(await measureOne(c, () => c.sayText(TEXTS[i % TEXTS.length]!, `c${i}`)));
    } finally {
      await c.close();
    }
    Object.assign(results, await providerRounds());
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
      // the SDK's page logs neither mouth movement bounds nor the events channel
      if (v.length === 0 && kind.includes('client rendering')) continue;
      report(
        row(
          `${kind}: ${label}`,
          [fmt(quantile(v, 0.5)), fmt(quantile(v, 0.95)), fmt(Math.max(...v)), v.length],
          46,
          8,
        ),
      );
      json[`${jsonKey(kind)}.${key}`] = {
        p50: +quantile(v, 0.5).toFixed(1),
        p95: +quantile(v, 0.95).toFixed(1),
        max: +Math.max(...v).toFixed(1),
        n: v.length,
      };
    }
  }
  const overhead: Record<string, unknown> = {};
  for (const kind of ['openai', 'elevenlabs']) {
    // speakingStart leaves with the first audio chunk: − T, it is what the engine adds
    for (const key of ['start', 'playout', 'audio'] as const) {
      const v = (results[`provider ${kind} (T ms first byte)`] ?? []).map((x) => x[key] - PROVIDER_DELAY_MS);
      overhead[`${kind}.${key}`] = {
        p50: +quantile(v, 0.5).toFixed(1),
        p95: +quantile(v, 0.95).toFixed(1),
        n: v.length,
      };
      report(
        row(
          `provider ${kind}: ${{ start: 'speakingStart', playout: 'first audio played out', audio: 'first audio (analyser)' }[key]} − T`,
          [fmt(quantile(v, 0.5)), fmt(quantile(v, 0.95)), fmt(Math.max(...v)), v.length],
          46,
          8,
        ),
      );
    }
  }
  reportDelays('video session', delays);
  const rtf = LOCAL_VOICE ? await localRealTimeFactor(LOCAL_VOICE, TEXTS) : undefined;
  if (rtf)
    report(
      row(
        `local voice ${basename(LOCAL_VOICE!)}: real-time factor (p50 / p95 / all)`,
        [rtf.p50.toFixed(3), rtf.p95.toFixed(3), rtf.overall.toFixed(3), rtf.n],
        46,
        8,
      ),
    );
  report(
    JSON.stringify({
      bench: 'latency',
      ...(rtf ? { localVoice: { dir: LOCAL_VOICE, realTimeFactor: rtf } } : {}),
      smoke,
      rounds: ROUNDS,
      floor: AUDIO_FLOOR,
      ms: json,
      receiverMs: Object.fromEntries(Object.entries(delays).map(([k, v]) => [k, +v.toFixed(1)])),
      providerDelayMs: PROVIDER_DELAY_MS,
      providerOverheadMs: overhead,
    }),
  );
});

function jsonKey(kind: string): string {
  if (kind.includes('client rendering')) return 'say-text-client';
  for (const k of ['openai', 'elevenlabs', 'flite', 'local']) if (kind.includes(k)) return k;
  return kind.split(' ')[0]!;
}

/** The say-text rounds again, spoken by the provider stand-ins, the embedded Flite voice and a local voice. */
async function providerRounds(): Promise<Record<string, Sample[]>> {
  const openai = await openAiStandin();
  const eleven = await elevenLabsStandin();
  const dir = mkdtempSync(join(tmpdir(), 'mp-bench-voices-'));
  const file = join(dir, 'voices.json');
  writeFileSync(
    file,
    JSON.stringify({
      voices: [
        {
          id: 'b-openai',
          provider: 'openai',
          providerVoice: 'alloy',
          name: 'A',
          language: 'en-US',
          gender: 'female',
        },
        ...(LOCAL_VOICE
          ? [
              {
                id: 'b-local',
                provider: 'local',
                model: LOCAL_VOICE,
                name: 'L',
                language: 'en-US',
                gender: 'female',
              },
            ]
          : []),
        {
          id: 'b-eleven',
          provider: 'elevenlabs',
          providerVoice: 'benchvoice0123456789',
          name: 'E',
          language: 'en-US',
          gender: 'male',
        },
      ],
    }),
  );
  const env = {
    MOUTHPIECE_VOICES_FILE: file,
    MOUTHPIECE_OPENAI_TTS_URL: openai.url,
    MOUTHPIECE_OPENAI_TTS_API_KEY: openai.settings.apiKey,
    MOUTHPIECE_ELEVENLABS_URL: eleven.url,
    MOUTHPIECE_ELEVENLABS_API_KEY: eleven.settings.apiKey,
  };
  const out: Record<string, Sample[]> = {};
  try {
    for (const [kind, voiceId] of [
      ['provider openai (T ms first byte)', 'b-openai'],
      ['provider elevenlabs (T ms first byte)', 'b-eleven'],
      ['embedded flite', 'en-us-natural-female'],
      ...(LOCAL_VOICE ? ([[`local voice ${basename(LOCAL_VOICE)}`, 'b-local']] as const) : []),
    ] as const) {
      const s = await openAvSession(env, voiceId);
      const xs: Sample[] = [];
      try {
        // untimed: the stand-ins render each text once (espeak-ng) and keep it; Flite's worker starts
        openai.settings.firstByteDelayMs = 0;
        eleven.settings.firstByteDelayMs = 0;
        for (let i = 0; i < Math.min(ROUNDS, TEXTS.length); i++)
          await measureOne(s, () => s.sayText(TEXTS[i]!, `warm${i}`));
        openai.settings.firstByteDelayMs = PROVIDER_DELAY_MS;
        eleven.settings.firstByteDelayMs = PROVIDER_DELAY_MS;
        for (let i = 0; i < ROUNDS; i++)
          xs.push(await measureOne(s, () => s.sayText(TEXTS[i % TEXTS.length]!, `p${i}`)));
      } finally {
        await s.close();
      }
      out[kind] = xs;
    }
  } finally {
    await openai.close();
    await eleven.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
