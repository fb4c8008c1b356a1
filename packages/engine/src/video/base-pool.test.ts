import { describe, expect, it } from 'vitest';
import { chooseBasePool, POOL_LIMITS, type PoolInput } from './base-pool.js';

const FPS = 25;
const talking = (i: number): PoolInput => ({
  valid: true,
  open: 0.2 + 0.5 * Math.abs(Math.sin(i / 3)),
  loudness: 0.6,
});
const calm: PoolInput = { valid: true, open: 0.02, loudness: 0.01 };

describe('base pool', () => {
  it('takes a calm stretch unbaked for idle, and speech-time stretches baked for speaking', () => {
    // 10 s of calm, then 30 s of talk
    const frames = Array.from({ length: 1000 }, (_, i) => (i < 250 ? calm : talking(i)));
    const pool = chooseBasePool(frames, FPS);
    expect(pool.source.length).toBeLessThanOrEqual(POOL_LIMITS.maxFrames);
    expect(pool.source.length).toBeGreaterThan(POOL_LIMITS.maxFrames - 10);
    expect(pool.source).toEqual([...pool.source].sort((a, b) => a - b));
    const calmOnes = pool.source.filter((s) => s < 250);
    expect(calmOnes.length).toBe(POOL_LIMITS.maxCalm);
    pool.source.forEach((s, k) => {
      expect(pool.idle[k]).toBe(s < 250); // enough calm footage: speech-time frames do not idle
      expect(pool.speech[k]).toBe(s >= 250);
      expect(pool.baked[k]).toBe(s >= 250);
    });
    // the speech-time stretches spread over the talk, not one block
    const talk = pool.source.filter((s) => s >= 250);
    expect(Math.min(...talk)).toBeLessThan(250 + 750 * 0.25);
    expect(Math.max(...talk)).toBeGreaterThan(250 + 750 * 0.75);
  });

  it('makes idle frames of talking ones when the clip has no calm stretch', () => {
    const frames = Array.from({ length: 500 }, (_, i) => talking(i));
    const pool = chooseBasePool(frames, FPS);
    expect(pool.source.length).toBe(POOL_LIMITS.maxFrames);
    expect(pool.idle.every(Boolean)).toBe(true);
    expect(pool.baked.every(Boolean)).toBe(true);
    expect(pool.speech.every(Boolean)).toBe(true);
  });

  it('keeps untracked frames out, and short pauses in speech are speech-time', () => {
    const frames = Array.from({ length: 600 }, (_, i): PoolInput => {
      if (i % 100 < 10) return { ...calm, valid: false };
      // a 0.8 s pause every 4 s
      return i % 100 >= 60 && i % 100 < 80 ? calm : talking(i);
    });
    const pool = chooseBasePool(frames, FPS);
    expect(pool.source.every((s) => frames[s]!.valid)).toBe(true);
    expect(pool.idle.every(Boolean)).toBe(true); // no calm stretch of 1.5 s
    expect(pool.baked.every(Boolean)).toBe(true);
  });

  it('finds nothing when no frame is tracked', () => {
    const frames = Array.from({ length: 600 }, () => ({ ...calm, valid: false }));
    expect(chooseBasePool(frames, FPS).source).toEqual([]);
  });
});
