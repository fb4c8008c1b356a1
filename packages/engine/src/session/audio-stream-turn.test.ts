/**
 * A streamed audio turn played by the real player on a manual clock: chunks arrive on a schedule
 * (real time, with jitter), the player pulls 10 ms per tick, and what it reports is checked.
 */
import { describe, expect, it } from 'vitest';
import { CHUNK_SAMPLES } from '../clock/media-clock.js';
import { ManualClock } from '../testing/manual-clock.js';
import {
  AudioStreamTurn,
  JITTER_MARGIN_MS,
  JITTER_MIN_MS,
  JITTER_START_MS,
  nextHoldMs,
} from './audio-stream-turn.js';
import { SpeechPlayer, type PlayerEvent } from './speech-player.js';

/** `ms` of a 220 Hz tone at `rate`, as s16le bytes. */
function tone(ms: number, rate: number): Uint8Array {
  const n = Math.round((ms * rate) / 1000);
  const pcm = new Int16Array(n);
  for (let i = 0; i < n; i++) pcm[i] = Math.round(8000 * Math.sin((2 * Math.PI * 220 * i) / rate));
  return new Uint8Array(pcm.buffer);
}

/** A deterministic generator in [0, 1). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/**
 * Streams `totalMs` in chunks of `chunkMs` arriving at real time ± `jitterMs` (in order, as over
 * TCP), with `gaps` (a pause before the chunk starting at that ms), and plays it; ends the turn
 * after the last chunk unless `noEnd`.
 */
function play(o: {
  chunkMs: number;
  totalMs: number;
  jitterMs?: number;
  rate?: number;
  gaps?: Record<number, number>;
  noEnd?: boolean;
  runMs?: number;
  holdMs?: number;
}) {
  const rate = o.rate ?? 24000;
  const clock = new ManualClock(0);
  const turn = new AudioStreamTurn({
    turnId: 't1',
    sampleRateHz: rate,
    clock,
    autoFinalizeMs: 1000,
    ...(o.holdMs === undefined ? {} : { holdMs: o.holdMs }),
  });
  const player = new SpeechPlayer();
  player.start(turn.audio);
  const random = prng(7);
  const arrivals: number[] = [];
  let pause = 0;
  for (let at = 0, prev = 0; at < o.totalMs; at += o.chunkMs) {
    pause += o.gaps?.[at] ?? 0;
    const jitter = at === 0 ? 0 : (random() * 2 - 1) * (o.jitterMs ?? 0);
    prev = Math.max(prev, at + pause + jitter);
    arrivals.push(prev);
  }
  const events: (PlayerEvent & { atMs: number })[] = [];
  const out = new Int16Array(CHUNK_SAMPLES);
  let next = 0;
  const runMs = o.runMs ?? o.totalMs + 2000;
  for (let t = 0; t <= runMs; t += 10) {
    clock.advance(t - clock.now());
    while (next < arrivals.length && arrivals[next]! <= t) {
      turn.write(tone(o.chunkMs, rate));
      next++;
      if (next === arrivals.length && !o.noEnd) turn.end();
    }
    for (const e of player.pull(out)) events.push({ ...e, atMs: t });
  }
  return { turn, events, player };
}

describe('a streamed audio turn', () => {
  it('starts once the jitter target is buffered, long before the turn ends', () => {
    const { events, turn } = play({ chunkMs: 20, totalMs: 2000 });
    const start = events.find((e) => e.type === 'speakingStart');
    expect(start?.atMs).toBeLessThanOrEqual(JITTER_START_MS + 40);
    expect(turn.underruns).toBe(0);
    expect(events.at(-1)?.type).toBe('done');
    expect(turn.playedMs).toBeGreaterThanOrEqual(1990);
  });

  for (const chunkMs of [20, 40, 100])
    it(`plays ${chunkMs} ms chunks arriving at real time ±30 ms without an underrun`, () => {
      for (const rate of [16000, 44100]) {
        const { turn, events } = play({ chunkMs, totalMs: 4000, jitterMs: 30, rate });
        expect(turn.underruns).toBe(0);
        expect(events.filter((e) => e.type === 'speakingStart')).toHaveLength(1);
        expect(Math.abs(turn.playedMs - 4000)).toBeLessThanOrEqual(chunkMs);
      }
    });

  it('counts an underrun when the producer stalls, plays silence, and holds more after it', () => {
    const { turn, events } = play({ chunkMs: 20, totalMs: 3000, gaps: { 1000: 300 } });
    expect(turn.underruns).toBe(1);
    expect(turn.targetMs).toBeGreaterThan(JITTER_START_MS + 20);
    expect(events.filter((e) => e.type === 'speakingStart')).toHaveLength(1);
    expect(Math.abs(turn.playedMs - 3000)).toBeLessThanOrEqual(20);
  });

  it("measures its arrivals' jitter, which sets the session's next hold", () => {
    const steady = play({ chunkMs: 20, totalMs: 2000 }).turn;
    const jittered = play({ chunkMs: 20, totalMs: 4000, jitterMs: 30 }).turn;
    expect(steady.jitterMs).toBeLessThan(10);
    expect(jittered.jitterMs).toBeGreaterThan(30);
    expect(jittered.jitterMs).toBeLessThanOrEqual(80);
    expect(nextHoldMs(JITTER_START_MS, steady)).toBe(JITTER_MIN_MS);
    expect(nextHoldMs(JITTER_START_MS, jittered)).toBe(Math.round(jittered.jitterMs) + JITTER_MARGIN_MS);
    // a learned short hold starts the next steady turn sooner
    const start = (hold?: number) =>
      play({ chunkMs: 20, totalMs: 1000, ...(hold === undefined ? {} : { holdMs: hold }) }).events.find(
        (e) => e.type === 'speakingStart',
      )!.atMs;
    expect(start(nextHoldMs(JITTER_START_MS, steady))).toBeLessThan(start());
  });

  it('ends by itself when the producer goes silent without end, with what arrived', () => {
    const { turn, events } = play({ chunkMs: 20, totalMs: 500, noEnd: true, runMs: 3000 });
    expect(turn.ended).toBe(true);
    expect(events.at(-1)?.type).toBe('done');
    expect(Math.abs(turn.playedMs - 500)).toBeLessThanOrEqual(20);
  });

  it('answers too_long past the turn limit and closed after end', () => {
    const clock = new ManualClock(0);
    const turn = new AudioStreamTurn({ turnId: 't', sampleRateHz: 8000, clock, autoFinalizeMs: 1000 });
    const minute = tone(60_000, 8000);
    const answers = Array.from({ length: 6 }, () => turn.write(minute));
    expect(answers).toEqual(['written', 'written', 'written', 'written', 'written', 'too_long']);
    expect(turn.write(tone(20, 8000))).toBe('too_long');
    turn.end();
    expect(turn.write(tone(20, 8000))).toBe('closed');
  }, 60_000); // five minutes of audio resampled and its mouth tracked: seconds, more on a loaded machine

  it('joins a sample split across writes', () => {
    const clock = new ManualClock(0);
    const turn = new AudioStreamTurn({ turnId: 't', sampleRateHz: 48000, clock, autoFinalizeMs: 1000 });
    const bytes = tone(10, 48000);
    turn.write(bytes.subarray(0, 3));
    turn.write(bytes.subarray(3));
    turn.end();
    const read = turn.audio.read(0);
    expect(read.kind).toBe('piece');
    if (read.kind === 'piece') expect([...read.piece.pcm]).toEqual([...new Int16Array(bytes.slice().buffer)]);
  });
});
