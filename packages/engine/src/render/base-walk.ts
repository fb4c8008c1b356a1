/**
 * Which base frame a video avatar shows next (docs/design.md §11 "Base frames"): a random walk
 * over the pack's video-texture graph (video.json `base.jumps`, written by the import's
 * video/jump-graph.ts), after Schödl et al.'s "Video Textures" (2000).
 *
 * The walk plays the footage on, frame after frame, and after a run of RUN_SECONDS (drawn at
 * random) jumps where the graph allows a seamless jump (cost ≤ 1), choosing among the jumps at
 * random, cheaper and longer-unseen footage likelier, by choice only to footage unseen for RECENT
 * seconds. It never lets a window of REPEAT_WINDOW seconds of shown frames be the same footage
 * (frame for frame, within SAME source frames) as one shown in the REPEAT_HORIZON seconds before:
 * looking ahead to the next frame where it could jump, it jumps earlier when playing on would
 * replay, and where every way on repeats it takes the one that repeats least (GUARD keeps a
 * margin for that). It takes a stretch's last seamless exit rather than reach the stretch's end,
 * where only the graph's escapes (above the limit) lead on. At idle it walks the idle frames;
 * while speaking, the speech-time frames (the head moves as the person's did while speaking).
 * When the wanted set changes it moves over at the first seamless jump towards it (fewest steps
 * by the graph), never by a cut.
 *
 * Deterministic for a seed (tests); the renderer seeds each walk at random.
 */
import type { VideoIndex } from '@mouthpiece/draw';
import { seededRandom } from '../animation/seeded-random.js';

export type WalkMode = 'idle' | 'speech';

export interface WalkGraph {
  source: readonly number[];
  jumps: ReadonlyArray<readonly number[]>;
  jumpCost: ReadonlyArray<readonly number[]>;
  idle: readonly boolean[];
  speech: readonly boolean[];
}

/** Runs between chosen jumps last between these (seconds, uniform). */
export const RUN_SECONDS = [0.4, 1.6] as const;
/** No window this long (seconds) of shown base frames repeats one from the REPEAT_HORIZON before. */
export const REPEAT_WINDOW = 2;
export const REPEAT_HORIZON = 30;
/**
 * The walk guards windows this fraction of REPEAT_WINDOW long: where every way on would repeat
 * (sparse footage), it goes on repeating until a frame lets it jump, and the margin keeps that
 * under REPEAT_WINDOW.
 */
const GUARD = 0.8;
/** Frames this close in the clip count as the same footage when the walk weighs what it showed lately. */
const NEAR = 12;
/** Frames this close in the clip count as the same frame for a repeat (a replay shifted a little). */
const SAME = 3;
/** A jump by choice lands on footage not shown for this long (seconds). */
const RECENT = 4;

/** The pack's graph, or undefined for a pack imported before it (the renderer then loops). */
export function walkGraphOf(base: VideoIndex['base']): WalkGraph | undefined {
  const n = base.frames;
  const { jumps, jumpCost } = base;
  if (jumps?.length !== n || jumpCost?.length !== n) return undefined;
  const all = Array<boolean>(n).fill(true);
  return {
    source: base.source,
    jumps,
    jumpCost,
    idle: base.idle?.length === n ? base.idle : all,
    speech: base.speech?.length === n ? base.speech : all,
  };
}

interface ModeTables {
  /** In the mode's set and never stuck there (it plays on or jumps to such a frame). */
  alive: Uint8Array;
  /** Frames shown for certain from frame i on: up to its stretch's first seamless exit or end. */
  runway: Int32Array;
  /** Steps (playing on or jumping seamlessly) to an alive frame; 0 on one. */
  hops: Int32Array;
}

export class BaseWalk {
  readonly #g: WalkGraph;
  readonly #n: number;
  readonly #random: () => number;
  readonly #fps: number;
  /** The next base frame in the same stretch, or -1. */
  readonly #cont: Int32Array;
  readonly #modes: Record<WalkMode, ModeTables>;
  readonly #window: number;
  readonly #horizon: number;
  readonly #recent: number;
  /** Shown frames, a ring of #horizon + #window. */
  readonly #history: Int32Array;
  /** When each frame was last shown (-1: never), and every time within the horizon. */
  readonly #last: Float64Array;
  readonly #shownAt: number[][];
  #t = 0;
  #cur = -1;
  #run = 0;
  #runTarget = 0;

  constructor(graph: WalkGraph, opts: { fps: number; seed: number }) {
    this.#g = graph;
    this.#n = graph.source.length;
    if (this.#n === 0) throw new Error('the walk needs base frames');
    this.#random = seededRandom(opts.seed);
    this.#fps = opts.fps;
    this.#cont = Int32Array.from(graph.source, (s, i) => (graph.source[i + 1] === s + 1 ? i + 1 : -1));
    this.#modes = { idle: this.#tables(graph.idle), speech: this.#tables(graph.speech) };
    this.#window = Math.max(2, Math.round(REPEAT_WINDOW * GUARD * opts.fps));
    this.#horizon = Math.round(REPEAT_HORIZON * opts.fps);
    this.#recent = Math.round(RECENT * opts.fps);
    this.#history = new Int32Array(this.#horizon + this.#window);
    this.#last = new Float64Array(this.#n).fill(-1);
    this.#shownAt = Array.from({ length: this.#n }, () => []);
  }

  #tables(set: readonly boolean[]): ModeTables {
    const n = this.#n;
    let alive = Uint8Array.from(set, (v) => (v ? 1 : 0));
    if (!this.#prune(alive)) alive = new Uint8Array(n).fill(1);
    this.#prune(alive);
    // fewest steps to an alive frame, breadth first over the graph reversed
    const pred: number[][] = Array.from({ length: n }, () => []);
    for (let i = 0; i < n; i++) {
      if (this.#cont[i]! >= 0) pred[this.#cont[i]!]!.push(i);
      this.#g.jumps[i]!.forEach(
        (j, k) => (this.#g.jumpCost[i]![k]! <= 1 || this.#cont[i]! < 0) && pred[j]!.push(i),
      );
    }
    const hops = new Int32Array(n).fill(0x3fffffff);
    const queue: number[] = [];
    for (let i = 0; i < n; i++)
      if (alive[i]) {
        hops[i] = 0;
        queue.push(i);
      }
    for (let q = 0; q < queue.length; q++)
      for (const p of pred[queue[q]!]!)
        if (hops[p]! > hops[queue[q]!]! + 1) {
          hops[p] = hops[queue[q]!]! + 1;
          queue.push(p);
        }
    const runway = new Int32Array(n);
    for (let i = n - 1; i >= 0; i--) {
      const c = this.#cont[i]!;
      const exit = this.#g.jumps[i]!.some((j, k) => this.#g.jumpCost[i]![k]! <= 1 && alive[j]);
      runway[i] = exit || c < 0 || !alive[c] ? 1 : 1 + runway[c]!;
    }
    return { alive, hops, runway };
  }

  /** Drops frames of `alive` that lead nowhere within it; whether any remain. */
  #prune(alive: Uint8Array): boolean {
    for (let changed = true; changed;) {
      changed = false;
      for (let i = 0; i < this.#n; i++) {
        if (!alive[i]) continue;
        const c = this.#cont[i]!;
        if ((c >= 0 && alive[c]) || this.#g.jumps[i]!.some((j) => alive[j])) continue;
        alive[i] = 0;
        changed = true;
      }
    }
    return alive.some((v) => v === 1);
  }

  /** The next base frame for the wanted mode. */
  next(mode: WalkMode): number {
    const m = this.#modes[mode];
    let i: number;
    if (this.#cur < 0) i = this.#start(m);
    else if (!m.alive[this.#cur]) i = this.#seek(m);
    else i = this.#walk(m);
    this.#show(i);
    return i;
  }

  #start(m: ModeTables): number {
    const frames: number[] = [];
    m.alive.forEach((v, i) => v && frames.push(i));
    this.#newRun();
    return frames[Math.floor(this.#random() * frames.length)]!;
  }

  /** Towards the mode's frames: the option with the fewest steps left, playing on when it ties. */
  #seek(m: ModeTables): number {
    const cur = this.#cur;
    const c = this.#cont[cur]!;
    let best = c;
    let bestHops = c >= 0 ? m.hops[c]! : Infinity;
    this.#g.jumps[cur]!.forEach((j, k) => {
      if (c >= 0 && this.#g.jumpCost[cur]![k]! > 1) return;
      if (m.hops[j]! < bestHops) {
        best = j;
        bestHops = m.hops[j]!;
      }
    });
    if (best < 0) best = (cur + 1) % this.#n; // a graph without a way on: the next frame
    if (best !== c) this.#newRun();
    else this.#run++;
    return best;
  }

  #walk(m: ModeTables): number {
    const cur = this.#cur;
    const c = this.#cont[cur]!;
    const canPlayOn = c >= 0 && m.alive[c] === 1;
    const mustJump = !canPlayOn || this.#repeats(c, m);
    const { jumps, jumpCost } = this.#g;
    const options: Array<[number, number]> = [];
    jumps[cur]!.forEach((j, k) => m.alive[j] && options.push([j, jumpCost[cur]![k]!]));
    const fresh = options.filter(([j]) => !this.#repeats(j, m));
    const seamless = fresh.filter(([, cost]) => cost <= 1);
    // by choice, to footage not shown lately (no replay, not even shifted); when it must, to the
    // least recent
    const good = seamless.filter(([j]) => this.#age(j) >= this.#recent);
    if (good.length && this.#run >= this.#runTarget) {
      this.#newRun();
      return this.#choose(good);
    }
    // the last seamless exit before the stretch's end is taken rather than a forced jump there,
    // unless it replays footage of the last REPEAT_WINDOW
    const lastExit = canPlayOn && !this.#exitAhead(c, m);
    const older = lastExit ? seamless.filter(([j]) => this.#age(j) >= this.#window) : [];
    if (older.length) {
      this.#newRun();
      return good.length ? this.#choose(good) : this.#oldest(older);
    }
    if (seamless.length && mustJump) {
      this.#newRun();
      return good.length ? this.#choose(good) : this.#oldest(seamless);
    }
    if (!mustJump) {
      this.#run++;
      return c;
    }
    // no seamless way: any jump that repeats nothing (a stretch's end); else, where every way on
    // repeats, the one that repeats least
    if (fresh.length) {
      this.#newRun();
      return this.#choose(fresh);
    }
    const ways = canPlayOn ? [c, ...options.map(([j]) => j)] : options.map(([j]) => j);
    if (ways.length === 0) return this.#seek(m);
    const least = ways.reduce((a, b) => (this.#repeatLength(b, m) < this.#repeatLength(a, m) ? b : a));
    if (least === c) this.#run++;
    else this.#newRun();
    return least;
  }

  /** Whether a seamless jump staying in the mode exists from i or later in its stretch. */
  #exitAhead(i: number, m: ModeTables): boolean {
    for (let k = i; k >= 0 && m.alive[k]; k = this.#cont[k]!)
      if (this.#g.jumps[k]!.some((j, x) => this.#g.jumpCost[k]![x]! <= 1 && m.alive[j])) return true;
    return false;
  }

  /** Frames since base frame j or a frame of its stretch within NEAR source frames was shown. */
  #age(j: number): number {
    const src = this.#g.source;
    let last = -1;
    for (let k = Math.max(0, j - NEAR); k <= Math.min(this.#n - 1, j + NEAR); k++)
      if (Math.abs(src[k]! - src[j]!) <= NEAR) last = Math.max(last, this.#last[k]!);
    return last < 0 ? Infinity : this.#t - last;
  }

  /** One of the jumps at random: cheaper ones and footage unseen for longer likelier. */
  #choose(options: ReadonlyArray<[number, number]>): number {
    const weights = options.map(([j, cost]) => {
      return Math.exp(-2 * cost) * Math.min(1, 0.02 + this.#age(j) / this.#horizon);
    });
    let r = this.#random() * weights.reduce((s, w) => s + w, 0);
    for (let k = 0; k < options.length; k++) if ((r -= weights[k]!) < 0) return options[k]![0];
    return options[options.length - 1]![0];
  }

  /** The option whose footage was shown longest ago. */
  #oldest(options: ReadonlyArray<[number, number]>): number {
    let best = options[0]![0];
    for (const [j] of options) if (this.#age(j) > this.#age(best)) best = j;
    return best;
  }

  #newRun(): void {
    this.#run = 0;
    const [lo, hi] = RUN_SECONDS;
    this.#runTarget = Math.round((lo + (hi - lo) * this.#random()) * this.#fps);
  }

  /** Whether base frames a and b show the same footage (SAME source frames apart or less). */
  #same(a: number, b: number): boolean {
    return Math.abs(this.#g.source[a]! - this.#g.source[b]!) <= SAME;
  }

  /**
   * Whether showing x next would, before the walk can next jump, make a window of shown frames
   * the same footage as one that ended within the horizon (frame for frame, each within SAME
   * source frames, so a replay shifted by a frame counts): footage like x was shown at s, the
   * frames before s match the frames shown last, and those after s the ones x's stretch plays
   * for certain.
   */
  #repeats(x: number, m: ModeTables): boolean {
    return this.#repeatLength(x, m) >= this.#window;
  }

  /** The longest window of the horizon that showing x next repeats (see #repeats). */
  #repeatLength(x: number, m: ModeTables): number {
    let worst = 0;
    const t = this.#t;
    const w = this.#window;
    const h = this.#history;
    const at = (time: number): number => h[time % h.length]!;
    const ahead = m.runway[x] || 1;
    for (let y = Math.max(0, x - SAME); y <= Math.min(this.#n - 1, x + SAME); y++) {
      if (!this.#same(x, y)) continue;
      for (const s of this.#shownAt[y]!) {
        if (t - s > this.#horizon) continue;
        let back = 0;
        while (back < w && s - back - 1 >= 0 && this.#same(at(s - back - 1), at(t - back - 1))) back++;
        let forward = 1;
        for (let f = this.#cont[x]!; forward < ahead && s + forward < t && f >= 0; f = this.#cont[f]!) {
          if (!this.#same(at(s + forward), f)) break;
          forward++;
        }
        worst = Math.max(worst, back + forward);
      }
    }
    return worst;
  }

  #show(i: number): void {
    const t = this.#t++;
    this.#history[t % this.#history.length] = i;
    this.#last[i] = t;
    const times = this.#shownAt[i]!;
    while (times.length && t - times[0]! > this.#horizon) times.shift();
    times.push(t);
    this.#cur = i;
  }
}
