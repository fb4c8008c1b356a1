/**
 * Which mouth-library crops a video avatar shows for the wanted mouth (docs/design.md §11). Each
 * crop's cost is its descriptor's weighted distance from the wanted mouth plus a jump cost from the
 * previous pick: the next consecutive source frame is free (real coarticulation plays on), nearby
 * frames cost a little, distant ones JUMP_COST. The two cheapest crops are cross-faded, each
 * weighted by the other's cost.
 *
 * Online and greedy: the only state is the previous pick. DESIGN's short-window Viterbi over the
 * buffered mouth track (the renderer is only handed the current frame's mouth) is left for later.
 */
import type { MouthParams } from '../face-state.js';
import type { MouthDescriptor } from '../video/pack.js';

/**
 * Weights of the squared differences: opening counts most (it is what viewers read), then width
 * and rounding, teeth least (the crop shows whatever teeth the person showed). lipBite and tongue
 * have no descriptor.
 */
export const SELECTION_WEIGHTS = { open: 1, width: 0.1, round: 0.1, teeth: 0.05 } as const;
/** The cost of cutting to a distant source frame (in the distance's units: an `open` of 0.08). */
export const JUMP_COST = 0.08;
/** Source frames this far from the free next one cost the full JUMP_COST; nearer ones less. */
export const JUMP_SPAN = 4;
/** A second crop whose weight would be below this is not blended (no visible change, half the work). */
const MIN_SECOND_WEIGHT = 0.04;

export interface MouthPick {
  /** The cheapest crop and its weight. */
  a: number;
  wa: number;
  /** The second cheapest and its weight (wb 0 and b = a when it is not blended). */
  b: number;
  wb: number;
}

export class MouthSelector {
  readonly #open: Float64Array;
  readonly #width: Float64Array;
  readonly #round: Float64Array;
  readonly #teeth: Float64Array;
  readonly #source: Int32Array;
  #prev = -1;

  constructor(descriptors: readonly MouthDescriptor[], source: readonly number[]) {
    if (descriptors.length === 0) throw new Error('the mouth library is empty');
    if (source.length !== descriptors.length)
      throw new Error(`${descriptors.length} descriptors but ${source.length} source frames`);
    this.#open = Float64Array.from(descriptors, (d) => d.open);
    this.#width = Float64Array.from(descriptors, (d) => d.width);
    this.#round = Float64Array.from(descriptors, (d) => d.round);
    this.#teeth = Float64Array.from(descriptors, (d) => d.teeth);
    this.#source = Int32Array.from(source);
  }

  /** Forgets the previous pick (after the composite faded out): the next pick jumps for free. */
  reset(): void {
    this.#prev = -1;
  }

  /** The crops for the wanted mouth; remembers the cheapest as the previous pick. */
  select(mouth: MouthParams): MouthPick {
    const W = SELECTION_WEIGHTS;
    const n = this.#open.length;
    const next = this.#prev >= 0 ? this.#source[this.#prev]! + 1 : 0;
    let a = 0;
    let ca = Infinity;
    let b = 0;
    let cb = Infinity;
    for (let k = 0; k < n; k++) {
      const dOpen = this.#open[k]! - mouth.open;
      const dWidth = this.#width[k]! - mouth.width;
      const dRound = this.#round[k]! - mouth.round;
      const dTeeth = this.#teeth[k]! - mouth.teeth;
      let cost = Math.sqrt(
        W.open * dOpen * dOpen +
          W.width * dWidth * dWidth +
          W.round * dRound * dRound +
          W.teeth * dTeeth * dTeeth,
      );
      if (this.#prev >= 0) cost += JUMP_COST * Math.min(1, Math.abs(this.#source[k]! - next) / JUMP_SPAN);
      if (cost < ca) {
        b = a;
        cb = ca;
        a = k;
        ca = cost;
      } else if (cost < cb) {
        b = k;
        cb = cost;
      }
    }
    this.#prev = a;
    const total = ca + cb;
    const wb = n > 1 && total > 0 ? ca / total : 0;
    if (wb < MIN_SECOND_WEIGHT) return { a, wa: 1, b: a, wb: 0 };
    return { a, wa: 1 - wb, b, wb };
  }
}
