/**
 * The agent path's latency at a real browser (headless Chromium, loopback in a network namespace):
 * a stand-in OpenAI-compatible model (packages/backend/src/testing/openai-standin.ts) streams a
 * three-sentence answer at 40 tokens a second; the bench reads it with the example's chat
 * completion reader (examples/llm-agent/agent.mjs) into `streamText` of @mouthpiece/backend.
 * Per answer, from the model's first token: the first sentence complete at the model (its last
 * token sent), the first turn accepted by say-text, and the first received audio above the
 * floor (WebAudio analyser; the receiver's playout log beside it). The figure to beat is the
 * first sentence's completion + 150 ms (the say-text → first audio target of docs/design.md §9):
 * the ratio printed is first audio / that. Clocks: the page's and this process's
 * `performance.timeOrigin + now()`, both the host's wall clock. Prints a table and one JSON line;
 * never fails on a figure.
 */
import { it } from 'vitest';
import { createBackendClient } from '../../packages/backend/dist/index.js';
import { nowMs, openAiStandin } from '../../packages/backend/dist/testing/index.js';
// @ts-expect-error: the example is plain JavaScript
import { chatCompletion } from '../../examples/llm-agent/agent.mjs';
import {
  AUDIO_FLOOR,
  onset,
  openAvSession,
  wait,
  type AvSession,
  type ProbeLogs,
} from '../lib/av-session.js';
import { fmt, quantile, report, row, smoke } from '../lib/measure.js';

const ROUNDS = smoke ? 2 : Number(process.env['BENCH_ROUNDS'] ?? 20);
const TOKENS_PER_SECOND = 40;
const TARGET_MS = 150;
const ANSWERS = [
  'Sure, your order shipped this morning. It should arrive on Thursday. Is there anything else?',
  'Good question. The return window is thirty days from delivery. I can start one for you now.',
  'Hello there! I am the assistant for this shop. Ask me about orders, returns or sizes.',
  'Let me check that. Your refund went out yesterday. Banks take a few days to show it.',
];

interface Sample {
  sentence: number;
  posted: number;
  audio: number;
  playout: number;
  /** The same first sentence as one plain say-text, request sent → first audio (this machine's server figure now). */
  plain: number;
}

/** First received audio (page clock) after tPage, polled until it comes (≤ 6 s). */
async function firstAudio(s: AvSession, tPage: number): Promise<ProbeLogs> {
  let logs = await s.logs(tPage);
  for (let k = 0; k < 60 && Number.isNaN(onset(logs.audio, tPage, AUDIO_FLOOR)); k++) {
    await wait(100);
    logs = await s.logs(tPage);
  }
  return logs;
}

it('measures', async () => {
  const model = await openAiStandin({ tokensPerSecond: TOKENS_PER_SECOND });
  const s = await openAvSession();
  const samples: Sample[] = [];
  try {
    const sessionId = decodeURIComponent(s.base.split('/').at(-1)!);
    const session = createBackendClient({ baseUrl: s.server.url }).session({ sessionId, token: s.token });
    const pageOrigin = await s.page.evaluate(() => performance.timeOrigin);
    for (let i = -1; i < ROUNDS; i++) {
      model.settings.reply = () => ANSWERS[(i + ANSWERS.length) % ANSWERS.length]!;
      const tPage = await s.page.evaluate(() => performance.now());
      let postedAt = NaN;
      const done = session.streamText(
        chatCompletion({
          baseUrl: model.baseUrl,
          apiKey: model.apiKey,
          model: 'standin',
          messages: [{ role: 'user', content: 'q' }],
        }) as AsyncIterable<string>,
        {
          turnIdPrefix: `r${i + 1}`,
          onTurn: () => (Number.isNaN(postedAt) ? (postedAt = nowMs()) : undefined),
        },
      );
      const logs = await firstAudio(s, tPage);
      await done;
      const c = model.completions.at(-1)!;
      const first = c.sentAt[0]!;
      if (process.env['BENCH_DEBUG'])
        report(
          `debug: request→first token ${fmt(first - (pageOrigin + tPage))} ms (clocks), request→audio ${fmt(onset(logs.audio, tPage, AUDIO_FLOOR) - tPage)} ms (page clock), node-page origin ${fmt(performance.timeOrigin - pageOrigin)}`,
        );
      if (i >= 0)
        samples.push({
          sentence: c.sentAt[c.firstSentenceToken]! - first,
          posted: postedAt - first,
          audio: pageOrigin + onset(logs.audio, tPage, AUDIO_FLOOR) - first,
          playout: pageOrigin + onset(logs.playout, tPage, AUDIO_FLOOR) - first,
          plain: NaN,
        });
      await s.settle();
      await wait(200);
      // the same first sentence as one say-text: what the server alone takes now, on this machine
      const sentence = c.tokens
        .slice(0, c.firstSentenceToken + 1)
        .join('')
        .trim();
      const tPlain = await s.page.evaluate(() => performance.now());
      const sentAt = nowMs();
      await session.sayText(sentence, { turnId: `plain${i + 1}` });
      const plainLogs = await firstAudio(s, tPlain);
      if (i >= 0) samples.at(-1)!.plain = pageOrigin + onset(plainLogs.audio, tPlain, AUDIO_FLOOR) - sentAt;
      await s.settle();
      await wait(200);
    }
  } finally {
    await s.close();
    await model.close();
  }
  const p50 = (k: keyof Sample): number => quantile(samples.map((x) => x[k]).filter(Number.isFinite), 0.5);
  const target = p50('sentence') + TARGET_MS;
  report(
    `agent benchmark: ${ROUNDS} answers, stand-in model at ${TOKENS_PER_SECOND} tokens/s → streamText → say-text, 512x512@25, Chromium, loopback in a network namespace`,
  );
  report(row("from the model's first token to", ['p50', 'p95', 'max', 'n'], 46, 8) + '   (ms)');
  const json: Record<string, unknown> = {};
  for (const [label, key] of [
    ['first sentence complete at the model', 'sentence'],
    ['first turn accepted by say-text', 'posted'],
    ['first received audio (analyser)', 'audio'],
    ['first audio played out (receiver)', 'playout'],
    ['plain say-text of sentence 1 → first audio', 'plain'],
  ] as const) {
    const v = samples.map((x) => x[key]).filter(Number.isFinite);
    report(row(label, [fmt(quantile(v, 0.5)), fmt(quantile(v, 0.95)), fmt(Math.max(...v)), v.length], 46, 8));
    json[key] = { p50: +quantile(v, 0.5).toFixed(1), p95: +quantile(v, 0.95).toFixed(1), n: v.length };
  }
  const ratio = p50('audio') / target;
  // what the agent path adds over a plain say-text of its first sentence, at the same load
  const added = quantile(samples.map((x) => x.audio - x.sentence - x.plain).filter(Number.isFinite), 0.5);
  report(
    `figure to beat: first sentence complete + ${TARGET_MS} ms = ${fmt(target)} ms; first audio p50 ${fmt(p50('audio'))} ms: ratio ${ratio.toFixed(2)} (≤ 1 beats it)`,
  );
  report(
    `first audio − first sentence complete − plain say-text → first audio (what streaming adds), p50: ${fmt(added)} ms`,
  );
  report(
    JSON.stringify({
      bench: 'agent',
      smoke,
      rounds: ROUNDS,
      tokensPerSecond: TOKENS_PER_SECOND,
      floor: AUDIO_FLOOR,
      ms: json,
      targetMs: +target.toFixed(1),
      ratio: +ratio.toFixed(3),
      addedOverPlainSayTextMs: +added.toFixed(1),
    }),
  );
});
