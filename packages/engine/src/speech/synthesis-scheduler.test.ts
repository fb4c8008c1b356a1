import { describe, expect, it } from 'vitest';
import { SynthesisScheduler, singlePool } from './synthesis-scheduler.js';
import type { Tts } from './tts.js';
import type { SpeechSegment, SynthesisRequest } from './types.js';

/** A TTS whose requests finish when the test says so, recording what it was given. */
function manualTts() {
  const started: Array<{ text: string; finish(): void }> = [];
  const tts: Tts = {
    synthesize: (req: SynthesisRequest) =>
      new Promise<SpeechSegment>((resolve) => {
        started.push({
          text: req.text,
          finish: () => resolve({ pcm: new Int16Array(480), sampleRateHz: 48_000, phonemes: [], words: [] }),
        });
      }),
    close: () => Promise.resolve(),
  };
  return { tts: singlePool(tts), started };
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};
const req = (text: string, extra: object = {}) => ({ text, voiceId: 'en-us-female', speed: 1, ...extra });

describe('SynthesisScheduler', () => {
  it("a flooding session delays another session's first sentence by at most one sentence", async () => {
    const { tts, started } = manualTts();
    const s = new SynthesisScheduler(tts, { maxAhead: 100 });
    const flood = s.lane('flood');
    const quiet = s.lane('quiet');
    for (let i = 0; i < 50; i++) void flood.synthesize(req(`flood ${i}`));
    const first = quiet.synthesize(req('quiet first'));
    expect(started.map((x) => x.text)).toEqual(['flood 0']); // one at a time in the TTS
    started[0]!.finish();
    await flush();
    expect(started.map((x) => x.text)).toEqual(['flood 0', 'quiet first']);
    started[1]!.finish();
    await expect(first).resolves.toMatchObject({ sampleRateHz: 48_000 });
    await flush();
    expect(started.at(-1)!.text).toBe('flood 1');
  });

  it('a lane synthesizes only up to its high-water mark beyond playback, and continues when a piece is consumed', async () => {
    const { tts, started } = manualTts();
    const s = new SynthesisScheduler(tts, { maxAhead: 2 });
    const lane = s.lane('a');
    expect(lane.lookahead.highWater).toBe(2);
    for (let i = 0; i < 5; i++) void lane.synthesize(req(`s${i}`)).then(() => lane.lookahead.add());
    expect(started).toHaveLength(1); // one pool, one at a time
    started[0]!.finish();
    await flush();
    started[1]!.finish();
    await flush();
    expect(started).toHaveLength(2); // two ready, none played: it waits at the mark
    expect(s.waiting).toBe(3);
    lane.lookahead.release(); // a piece played out: no poke, the lane wakes by itself
    expect(started).toHaveLength(3);
    lane.lookahead.release();
    expect(started).toHaveLength(3); // the pool is busy with s2
  });

  it('pools run side by side, each at its own concurrency', () => {
    const { tts, started } = manualTts();
    const pooled = {
      ...tts,
      poolOf: (r: { text: string }) => ({ key: r.text[0]!, concurrency: r.text[0] === 'h' ? 2 : 1 }),
    };
    const s = new SynthesisScheduler(pooled, { maxAhead: 100 });
    const a = s.lane('a');
    const b = s.lane('b');
    for (const t of ['e1', 'e2']) void a.synthesize(req(t));
    for (const t of ['h1', 'h2', 'h3']) void b.synthesize(req(t));
    // pool e takes one request, pool h two, whichever lanes they come from
    expect(started.map((x) => x.text)).toEqual(['e1', 'h1', 'h2']);
  });

  it('an urgent request (a transcript reading) does not wait for the lookahead', () => {
    const { tts, started } = manualTts();
    const s = new SynthesisScheduler(tts, { maxAhead: 1 });
    const lane = s.lane('a');
    lane.lookahead.add(5);
    void lane.synthesize(req('normal'));
    void lane.synthesize(req('urgent', { urgent: true }));
    expect(started.map((x) => x.text)).toEqual([]);
    // the normal one heads the lane and waits; an urgent one alone goes at once
    const other = s.lane('b');
    other.lookahead.add(5);
    void other.synthesize(req('urgent b', { urgent: true }));
    expect(started.map((x) => x.text)).toEqual(['urgent b']);
  });

  it('interrupt withdraws waiting requests (never sent), and drops the result of one in flight', async () => {
    const { tts, started } = manualTts();
    const s = new SynthesisScheduler(tts, { maxAhead: 100 });
    const lane = s.lane('a');
    const abort = new AbortController();
    const inFlight = lane.synthesize(req('one', { signal: abort.signal }));
    const waiting = lane.synthesize(req('two', { signal: abort.signal }));
    abort.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    started[0]!.finish();
    await expect(inFlight).rejects.toMatchObject({ name: 'AbortError' });
    await flush();
    expect(started.map((x) => x.text)).toEqual(['one']);
    expect(s.waiting).toBe(0);
  });

  it('closing a lane (session end) rejects what it had waiting and frees the TTS for others', async () => {
    const { tts, started } = manualTts();
    const s = new SynthesisScheduler(tts, { maxAhead: 100 });
    const a = s.lane('a');
    const b = s.lane('b');
    void a.synthesize(req('a0'));
    const waitingA = a.synthesize(req('a1'));
    const nextB = b.synthesize(req('b0'));
    a.close();
    await expect(waitingA).rejects.toMatchObject({ name: 'AbortError' });
    await expect(a.synthesize(req('a2'))).rejects.toMatchObject({ name: 'AbortError' });
    started[0]!.finish();
    await flush();
    expect(started.map((x) => x.text)).toEqual(['a0', 'b0']);
    started[1]!.finish();
    await expect(nextB).resolves.toBeDefined();
    expect(s.waiting).toBe(0);
  });
});
