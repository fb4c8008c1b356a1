import { describe, expect, it } from 'vitest';
import { buildJumpGraph } from '../video/jump-graph.js';
import { longestRepeat } from '../testing/repeats.js';
import { swayFrames } from '../testing/sway-frames.js';
import {
  BaseWalk,
  REPEAT_HORIZON,
  REPEAT_WINDOW,
  walkGraphOf,
  type WalkGraph,
  type WalkMode,
} from './base-walk.js';

const FPS = 25;
const range = (a: number, b: number): number[] => Array.from({ length: b - a }, (_, i) => a + i);

/** A pool of three 4 s stretches of a swaying head; `idle`/`speech` by source frame. */
function graphOf(
  source: readonly number[],
  idle: (s: number) => boolean,
  speech: (s: number) => boolean,
): WalkGraph {
  const sets = { idle: source.map(idle), speech: source.map(speech) };
  const g = buildJumpGraph(swayFrames(source, 37), sets);
  return { source, jumps: g.jumps, jumpCost: g.cost, ...sets };
}

/** Every step plays on (the next source frame of the same stretch) or is one of the graph's jumps. */
function stepsFollowGraph(g: WalkGraph, shown: readonly number[]): { jumps: number; seamless: number } {
  let jumps = 0;
  let seamless = 0;
  for (let t = 1; t < shown.length; t++) {
    const [a, b] = [shown[t - 1]!, shown[t]!];
    if (g.source[b] === g.source[a]! + 1 && b === a + 1) continue;
    const k = g.jumps[a]!.indexOf(b);
    expect(k, `${a} → ${b} is not a jump of the graph`).toBeGreaterThanOrEqual(0);
    jumps++;
    if (g.jumpCost[a]![k]! <= 1) seamless++;
  }
  return { jumps, seamless };
}

const walkFor = (g: WalkGraph, modes: WalkMode[], seed = 7): number[] => {
  const w = new BaseWalk(g, { fps: FPS, seed });
  return modes.map((m) => w.next(m));
};

describe('base-frame walk', () => {
  const source = [...range(0, 100), ...range(400, 500), ...range(900, 1000)];
  const every = graphOf(
    source,
    () => true,
    () => true,
  );

  it('plays 60 s of idle without a window of 2 s equal to one of the 30 s before, only by the graph’s jumps', () => {
    const shown = walkFor(every, Array<WalkMode>(60 * FPS).fill('idle'));
    expect(longestRepeat(shown, REPEAT_HORIZON * FPS)).toBeLessThan(REPEAT_WINDOW * FPS);
    const { jumps, seamless } = stepsFollowGraph(every, shown);
    expect(jumps).toBeGreaterThan(30); // it walks: about a jump a second
    expect(seamless / jumps).toBeGreaterThan(0.9);
    expect(new Set(shown).size).toBeGreaterThan(source.length * 0.8); // and sees most of the footage
  });

  it('is the same walk for the same seed, another for another', () => {
    const modes = Array<WalkMode>(200).fill('idle');
    expect(walkFor(every, modes, 3)).toEqual(walkFor(every, modes, 3));
    expect(walkFor(every, modes, 3)).not.toEqual(walkFor(every, modes, 4));
  });

  it('moves to speech-time frames while speaking and back to idle frames after, at the graph’s jumps', () => {
    // the first stretch is calm (idle), the other two speech-time
    const g = graphOf(
      source,
      (s) => s < 100,
      (s) => s >= 400,
    );
    const modes: WalkMode[] = [
      ...Array<WalkMode>(10 * FPS).fill('idle'),
      ...Array<WalkMode>(8 * FPS).fill('speech'),
      ...Array<WalkMode>(10 * FPS).fill('idle'),
    ];
    const shown = walkFor(g, modes);
    stepsFollowGraph(g, shown);
    /** The step into frame t is playing on, or a seamless jump. */
    const seamlessAt = (t: number): boolean => {
      const [a, b] = [shown[t - 1]!, shown[t]!];
      return b === a + 1 || g.jumpCost[a]![g.jumps[a]!.indexOf(b)]! <= 1;
    };
    const idleAt = (t: number): boolean => g.idle[shown[t]!]!;
    const speechAt = (t: number): boolean => g.speech[shown[t]!]!;
    // idle plays idle frames only
    for (let t = 0; t < 10 * FPS; t++) expect(idleAt(t)).toBe(true);
    // speaking reaches speech-time frames within a second and stays on them
    const reached = range(10 * FPS, 18 * FPS).find(speechAt)!;
    expect(reached - 10 * FPS).toBeLessThan(FPS);
    expect(seamlessAt(reached)).toBe(true);
    for (let t = reached; t < 18 * FPS; t++) expect(speechAt(t)).toBe(true);
    // after the turn it is back on idle frames within a second, and stays
    const back = range(18 * FPS, 28 * FPS).find(idleAt)!;
    expect(back - 18 * FPS).toBeLessThan(FPS);
    expect(seamlessAt(back)).toBe(true);
    for (let t = back; t < 28 * FPS; t++) expect(idleAt(t)).toBe(true);
  });

  it('reads the graph from a pack’s index, and none from a pack imported before it', () => {
    const base = {
      frames: 3,
      loop: 'cut' as const,
      toFrame: [],
      ring: [],
      source: [0, 1, 2],
    };
    expect(walkGraphOf(base)).toBeUndefined();
    const g = walkGraphOf({ ...base, jumps: [[2], [], [0]], jumpCost: [[0.5], [], [0.5]] })!;
    expect(g.idle).toEqual([true, true, true]);
    expect(walkFor(g, Array<WalkMode>(9).fill('idle'), 1).every((i) => i >= 0 && i < 3)).toBe(true);
  });
});
