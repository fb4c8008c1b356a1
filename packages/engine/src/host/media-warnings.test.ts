import { describe, expect, it } from 'vitest';
import { warnMediaTrouble } from './media-warnings.js';
import type { EngineMediaStats } from '../contract/types.js';

const stats = (o: Partial<EngineMediaStats>): EngineMediaStats => ({
  pid: 7,
  sessions: 2,
  framesSent: 0,
  framesHeld: 0,
  framesSkipped: 0,
  ticks: 0,
  skippedTicks: 0,
  maxLateMs: 0,
  stalls: 0,
  recentMaxLateMs: 0,
  ...o,
});

describe("the engine pool's ping warnings", () => {
  const warned = (before: EngineMediaStats | undefined, now: EngineMediaStats) => {
    const lines: Array<[Record<string, unknown>, string]> = [];
    warnMediaTrouble({ warn: (fields, msg) => lines.push([fields, msg]) }, before, now);
    return lines;
  };

  it('warns of stalled media ticks since the previous ping, with the latest lateness', () => {
    expect(warned(stats({ stalls: 1 }), stats({ stalls: 3, recentMaxLateMs: 312.4 }))).toEqual([
      [{ pid: 7, stalls: 2, sessions: 2, lateMs: 312 }, 'media ticks stalled'],
    ]);
  });

  it('not at a process’s first ping (its own start is not a stall of its sessions), nor when nothing changed', () => {
    expect(warned(undefined, stats({ stalls: 4 }))).toEqual([]);
    expect(warned(stats({ stalls: 4 }), stats({ stalls: 4 }))).toEqual([]);
  });

  it('warns of skipped frames from the first ping on', () => {
    expect(warned(undefined, stats({ framesSkipped: 5, maxLateMs: 80.6 }))).toEqual([
      [{ pid: 7, skipped: 5, sessions: 2, maxLateMs: 81 }, 'late frames skipped'],
    ]);
  });
});
