/**
 * The video renderer's base frames from a pack with a video-texture graph (render/base-walk.ts):
 * idle frames at rest, speech-time frames while speaking, joined at the graph's jumps, and the
 * composite fading out only over a base frame whose own mouth is closed. Packs without the graph
 * loop as before (video-renderer.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_MOTION, REST_MOUTH, type FaceState } from '../face-state.js';
import { swayFrames } from '../testing/sway-frames.js';
import { writeSyntheticVideoPack, type SyntheticVideoPack } from '../testing/synthetic-video-pack.js';
import { buildJumpGraph } from '../video/jump-graph.js';
import { i420Bytes, readVideoPack } from '../video/pack.js';
import { createVideoRenderer } from './video-renderer.js';

const SIZE = 128;
const range = (a: number, b: number): number[] => Array.from({ length: b - a }, (_, i) => a + i);
// four stretches of 16 frames: the first two calm (idle), the others speech-time
const SOURCE = [...range(0, 16), ...range(100, 116), ...range(200, 216), ...range(300, 316)];
const IDLE = SOURCE.map((s) => s < 200);
const SPEECH = SOURCE.map((s) => s >= 200);

const rest: FaceState = { mouth: REST_MOUTH, motion: REST_MOTION, speaking: false };
const speak: FaceState = {
  mouth: { ...REST_MOUTH, open: 0.6, width: 0.45 },
  motion: REST_MOTION,
  speaking: true,
};

let root: string;
let baked: SyntheticVideoPack;
let unbaked: SyntheticVideoPack;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mp-video-walk-'));
  const graph = buildJumpGraph(swayFrames(SOURCE, 8), { idle: IDLE, speech: SPEECH });
  const base = { source: SOURCE, jumps: graph.jumps, jumpCost: graph.cost, idle: IDLE, speech: SPEECH };
  const opts = { size: SIZE, baseFrames: SOURCE.length };
  baked = await writeSyntheticVideoPack(root, { ...opts, id: 'baked', base: { ...base, baked: SPEECH } });
  // speech-time frames with their own (open) mouth: the composite must stay over them
  unbaked = await writeSyntheticVideoPack(root, {
    ...opts,
    id: 'unbaked',
    base: { ...base, baked: SOURCE.map(() => false) },
  });
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

function picks(p: SyntheticVideoPack, states: FaceState[], seed = 5) {
  const r = createVideoRenderer(p.manifest, p.dir, { width: SIZE, height: SIZE }, { seed });
  try {
    return states.map((s) => r.pick!(s));
  } finally {
    r.close();
  }
}

const turn = (idle: number, speaking: number, after: number): FaceState[] => [
  ...Array<FaceState>(idle).fill(rest),
  ...Array<FaceState>(speaking).fill(speak),
  ...Array<FaceState>(after).fill(rest),
];

describe('video renderer with a video-texture graph', () => {
  it('walks the idle frames at rest, by the graph (each step plays on or is one of its jumps)', () => {
    const shown = picks(baked, Array<FaceState>(250).fill(rest)).map((p) => p.baseFrame);
    expect(shown.every((i) => IDLE[i])).toBe(true);
    const { jumps } = baked.index.base;
    for (let t = 1; t < shown.length; t++) {
      const [a, b] = [shown[t - 1]!, shown[t]!];
      if (b === a + 1 && SOURCE[b] === SOURCE[a]! + 1) continue;
      expect(jumps![a]).toContain(b);
    }
    // both calm stretches play: it walks, it does not loop one
    expect(new Set(shown.map((i) => Math.floor(SOURCE[i]! / 100)))).toEqual(new Set([0, 1]));
  });

  it('renders the walk’s base frame (the picture is the pack’s frame the pick names)', () => {
    const r = createVideoRenderer(baked.manifest, baked.dir, { width: SIZE, height: SIZE }, { seed: 9 });
    const twin = createVideoRenderer(baked.manifest, baked.dir, { width: SIZE, height: SIZE }, { seed: 9 });
    const { base } = readVideoPack(baked.dir);
    const n = i420Bytes(SIZE, SIZE);
    try {
      for (let t = 0; t < 40; t++) {
        const out = new Uint8Array(n);
        r.renderI420(rest, out);
        const i = twin.pick!(rest).baseFrame;
        expect(Buffer.compare(out, base.subarray(i * n, (i + 1) * n))).toBe(0);
      }
    } finally {
      r.close();
      twin.close();
    }
  });

  it('while speaking plays speech-time frames, reached and left at the graph’s jumps', () => {
    const states = turn(50, 100, 100);
    const shown = picks(baked, states).map((p) => p.baseFrame);
    const reached = range(50, 150).find((t) => SPEECH[shown[t]!])!;
    expect(reached - 50).toBeLessThan(25);
    for (let t = reached; t < 150; t++) expect(SPEECH[shown[t]!]).toBe(true);
    const back = range(150, 250).find((t) => IDLE[shown[t]!])!;
    expect(back - 150).toBeLessThan(25);
    for (let t = back; t < 250; t++) expect(IDLE[shown[t]!]).toBe(true);
    for (const t of [reached, back]) expect(baked.index.base.jumps![shown[t - 1]!]).toContain(shown[t]);
  });

  it('fades the composite out only over a base frame whose own mouth is closed', () => {
    for (const p of [baked, unbaked]) {
      const ps = picks(p, turn(20, 60, 60));
      const { idle, baked: bakedFlags } = p.index.base;
      for (let t = 1; t < ps.length; t++)
        if (ps[t]!.fade < ps[t - 1]!.fade)
          expect(idle![ps[t]!.baseFrame] || bakedFlags![ps[t]!.baseFrame]).toBe(true);
      // the unbaked speech-time frames keep the composite until an idle frame comes
      if (p === unbaked) ps.forEach((pick) => !IDLE[pick.baseFrame] && expect(pick.fade).toBe(1));
      expect(ps.at(-1)!.fade).toBe(0);
    }
  });

  it('is one walk for one seed', () => {
    const states = turn(30, 30, 30);
    expect(picks(baked, states, 3)).toEqual(picks(baked, states, 3));
    expect(picks(baked, states, 3).map((p) => p.baseFrame)).not.toEqual(
      picks(baked, states, 4).map((p) => p.baseFrame),
    );
  });
});
