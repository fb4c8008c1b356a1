import { describe, expect, it } from 'vitest';
import { swayFrames } from '../testing/sway-frames.js';
import { buildJumpGraph, eyeOpenness, frameDistances, MIN_SKIP } from './jump-graph.js';

const range = (a: number, b: number): number[] => Array.from({ length: b - a }, (_, i) => a + i);

describe('jump graph', () => {
  const source = [...range(0, 100), ...range(300, 400), ...range(700, 800)];
  const frames = swayFrames(source);
  const all = source.map(() => true);
  const graph = buildJumpGraph(frames, { idle: all, speech: all });

  it('links frames to frames that continue the motion: the cheapest at the same phase and direction, none opposite', () => {
    const phaseError = (i: number, j: number): number => {
      const phase = (((source[j]! - source[i]! - 1) % 40) + 40) % 40;
      return Math.min(phase, 40 - phase);
    };
    let seamless = 0;
    graph.jumps.forEach((js, i) => {
      if (js.length && graph.cost[i]![0]! <= 1) expect(phaseError(i, js[0]!)).toBeLessThanOrEqual(2);
      js.forEach((j, k) => {
        if (graph.cost[i]![k]! > 1) return;
        seamless++;
        // j shows where i + 1 would have come: never half a sway off (the head going the other way)
        expect(phaseError(i, j)).toBeLessThan(15);
        expect(Math.abs(source[j]! - source[i]! - 1)).toBeGreaterThanOrEqual(MIN_SKIP);
      });
      // the jumps lead to different footage, not to neighbouring frames of one place
      const targets = js.map((j) => source[j]!).sort((a, b) => a - b);
      for (let k = 1; k < targets.length; k++) expect(targets[k]! - targets[k - 1]!).toBeGreaterThan(1);
    });
    expect(seamless / source.length).toBeGreaterThan(2);
  });

  it('never links frames that do not match: footage elsewhere (another pose and light) gets no seamless jump', () => {
    const here = swayFrames(range(0, 100));
    const there = swayFrames(range(500, 600)).map((f) => ({
      ...f,
      thumb: f.thumb.map((v) => v + 60),
      landmarks: f.landmarks.map(([x, y]): [number, number] => [x + 12, y]),
    }));
    const frames2 = [...here, ...there];
    const flags = frames2.map(() => true);
    const g = buildJumpGraph(frames2, { idle: flags, speech: flags });
    const crossing = g.jumps.flatMap((js, i) =>
      js.filter((j, k) => g.cost[i]![k]! <= 1 && i < 100 !== j < 100),
    );
    expect(crossing).toEqual([]);
    // within each stretch the sway still links frames a period apart
    expect(g.jumps.filter((js, i) => js.some((j, k) => g.cost[i]![k]! <= 1)).length).toBeGreaterThan(50);
  });

  it('gives every stretch’s last frame a way on, and keeps jumps into each set apart', () => {
    for (const end of [99, 199, 299]) expect(graph.jumps[end]!.length).toBeGreaterThan(0);
    const idle = source.map((s) => s < 400);
    const speech = source.map((s) => s >= 300);
    const g = buildJumpGraph(frames, { idle, speech });
    // a calm frame can reach speech-time frames and back
    const toSpeech = g.jumps.slice(0, 100).some((js) => js.some((j) => speech[j] && !idle[j]));
    const toIdle = g.jumps.slice(200).some((js) => js.some((j) => idle[j] && !speech[j]));
    expect([toSpeech, toIdle]).toEqual([true, true]);
    // a stretch's last frame keeps a jump into its own set
    expect(g.jumps[99]!.some((j) => idle[j])).toBe(true);
    expect(g.jumps[299]!.some((j) => speech[j])).toBe(true);
  });

  it('tells a frame inside a blink from one with the eyes open, though the thumbnails are alike', () => {
    const [open] = swayFrames([0]);
    const eye = (lm: Array<[number, number]>, c0: number, top: number[], bottom: number[]): void => {
      // an eye 30 px wide whose lids meet
      lm[c0] = [200, 200];
      lm[c0 + 3] = [230, 200];
      for (const i of [...top, ...bottom]) lm[i] = [215, 200];
    };
    const closedLm = open!.landmarks.map((p): [number, number] => [p[0], p[1]]);
    const openLm = open!.landmarks.map((p): [number, number] => [p[0], p[1]]);
    eye(closedLm, 36, [37, 38], [40, 41]);
    eye(closedLm, 42, [43, 44], [46, 47]);
    eye(openLm, 36, [37, 38], [40, 41]);
    eye(openLm, 42, [43, 44], [46, 47]);
    for (const [t, b] of [
      [37, 41],
      [38, 40],
      [43, 47],
      [44, 46],
    ] as const) {
      openLm[t] = [215, 195];
      openLm[b] = [215, 205];
    }
    expect(eyeOpenness(openLm)).toBeCloseTo(1 / 3, 2);
    expect(eyeOpenness(closedLm)).toBe(0);
    const d = frameDistances([
      { ...open!, landmarks: openLm },
      { ...open!, landmarks: closedLm },
    ]);
    expect(d[1]).toBeGreaterThan(3); // a blink alone costs more than the old cut's whole allowance
  });
});
