/**
 * Which mouth-library crops a video avatar shows for the wanted mouth (docs/design.md §11). Each
 * crop's cost is its descriptor's weighted distance from the wanted mouth plus a jump cost from the
 * previous pick: the next consecutive source frame is free (real coarticulation plays on), nearby
 * frames cost a little, distant ones JUMP_COST. The two cheapest crops are cross-faded, each
 * weighted by the other's cost.
 *
 * When the mouth comes from audio alone and the frame carries its sound (FaceState.sound), each
 * crop's recorded sound counts too: the same voice saying the same phoneme lands next to a crop of
 * it (lipsync/sound-signature.ts), with the rounding and lip bites the opening model cannot hear.
 * How much it counts follows how near the nearest recorded sound is, in units of the library's own
 * spread: fully within one spread, not at all beyond two (another voice: the opening decides).
 *
 * Online and greedy: the only state is the previous pick. DESIGN's short-window Viterbi over the
 * buffered mouth track (the renderer is only handed the current frame's mouth) is left for later.
 */
import type { MouthParams } from '../face-state.js';
import { clearUnderNose } from './face-data.js';
import type { MouthDescriptor } from './pack.js';

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
/**
 * The cost of a crop's sound one library spread farther than the nearest (in the distance's units).
 * Chosen on held-out real footage (bench:video-real, the clip's last 20 % driven by its own audio)
 * once openings were put on the person's speaking range: the landmark opening's r was 0.36 at the
 * former 0.6, 0.48 at 1.0 and 0.42–0.46 from 1.2 to 3.2 (100 frames each).
 */
export const SOUND_WEIGHT = 1;
/**
 * The extra cost of showing the previous crop again: a held sound plays on through the recorded
 * frames that follow (a real mouth never freezes) unless they leave the wanted mouth by more than
 * this (in the distance's units: an `open` of 0.05).
 */
export const HOLD_COST = 0.05;
/** A second crop whose weight would be below this is not blended (no visible change, half the work). */
const MIN_SECOND_WEIGHT = 0.04;
/**
 * Two crops blend only when their source frames are this close: a run of real motion, whose
 * mouths differ by a few pixels that the face composite's shared landmarks align. Crops from
 * different moments would show two lip lines and two rows of teeth.
 */
export const BLEND_SPAN = 2;
/** The cost of a head-pose difference between crop and base frame (per unit of yaw or pitch, face-data.ts). */
export const POSE_WEIGHT = 0.6;
/** The cost of a crop whose face was covered in its source frame (per unit of covered share). */
export const COVER_WEIGHT = 0.5;

/**
 * The cost of a crop blurred by motion in its source frame (per unit of sharpness missing below
 * BLUR_FROM of the library's median: a crop at half that costs BLUR_WEIGHT / 2).
 */
export const BLUR_WEIGHT = 0.3;
const BLUR_FROM = 0.8;

/** What the pack measured of each crop beyond its mouth (absent in packs imported before it). */
export interface CropExtras {
  /** Head pose [yaw, pitch] of each crop's source frame. */
  pose?: ReadonlyArray<readonly [number, number]> | undefined;
  /**
   * What of each crop's face-mesh ring is clear (1) or covered (0); a crop whose ring under the
   * nose is not clear (face-data.ts clearUnderNose) is not picked.
   */
  clear?: ReadonlyArray<ArrayLike<number>> | undefined;
  /** Each crop's lower-face sharpness (video/face-data.ts): a blurred one costs BLUR_WEIGHT. */
  sharpness?: readonly number[] | undefined;
}

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
  /** Every crop's sound, back to back (#soundLength each); empty without sounds. */
  readonly #sounds: Float32Array;
  readonly #soundLength: number;
  readonly #spread: number;
  readonly #soundCost: Float64Array;
  /** Each crop's fixed cost (covered face), and its pose (yaw, pitch back to back) or empty. */
  readonly #fixed: Float64Array;
  readonly #pose: Float64Array;
  #prev = -1;

  /** `sounds` (one per crop) and their `spread` come from the pack (video/pack.ts); optional. */
  constructor(
    descriptors: readonly MouthDescriptor[],
    source: readonly number[],
    sounds: ReadonlyArray<ArrayLike<number>> = [],
    spread = 0,
    extras: CropExtras = {},
  ) {
    if (descriptors.length === 0) throw new Error('the mouth library is empty');
    if (source.length !== descriptors.length)
      throw new Error(`${descriptors.length} descriptors but ${source.length} source frames`);
    this.#open = Float64Array.from(descriptors, (d) => d.open);
    this.#width = Float64Array.from(descriptors, (d) => d.width);
    this.#round = Float64Array.from(descriptors, (d) => d.round);
    this.#teeth = Float64Array.from(descriptors, (d) => d.teeth);
    this.#source = Int32Array.from(source);
    const usable = sounds.length === descriptors.length && spread > 0;
    this.#soundLength = usable ? sounds[0]!.length : 0;
    this.#sounds = new Float32Array(usable ? sounds.length * this.#soundLength : 0);
    if (usable) sounds.forEach((v, k) => this.#sounds.set(Array.from(v), k * this.#soundLength));
    this.#spread = usable ? spread : 0;
    this.#soundCost = new Float64Array(descriptors.length);
    const n = descriptors.length;
    this.#fixed = new Float64Array(n);
    if (extras.clear?.length === n) {
      extras.clear.forEach((c, k) => {
        let covered = 0;
        for (let i = 0; i < c.length; i++) covered += (1 - c[i]!) / c.length;
        this.#fixed[k] = COVER_WEIGHT * covered;
      });
      // a crop whose upper lip reaches the line under the nose is cut there by the composite's
      // boundary (the base's moustache over its lip): never shown, unless every crop is so
      const cut = extras.clear.map((c) => !clearUnderNose(c));
      if (cut.includes(false)) cut.forEach((no, k) => no && (this.#fixed[k] = Infinity));
    }
    if (extras.sharpness?.length === n) {
      const sorted = [...extras.sharpness].sort((p, q) => p - q);
      const from = BLUR_FROM * (sorted[n >> 1] ?? 0);
      if (from > 0)
        extras.sharpness.forEach((v, k) => {
          this.#fixed[k]! += BLUR_WEIGHT * Math.max(0, 1 - v / from);
        });
    }
    this.#pose = new Float64Array(extras.pose?.length === n ? 2 * n : 0);
    extras.pose?.forEach((p, k) => this.#pose.set(p, 2 * k));
  }

  /** Each crop's sound cost for this frame (0 everywhere when there is no sound to match). */
  #soundCosts(sound: ArrayLike<number> | undefined): void {
    const cost = this.#soundCost;
    cost.fill(0);
    const L = this.#soundLength;
    if (!sound || L === 0 || sound.length !== L) return;
    const all = this.#sounds;
    let min = Infinity;
    for (let k = 0, o = 0; k < cost.length; k++) {
      let d = 0;
      for (let i = 0; i < L; i++, o++) {
        const x = all[o]! - sound[i]!;
        d += x * x;
      }
      cost[k] = Math.sqrt(d);
      if (cost[k]! < min) min = cost[k]!;
    }
    const trust = Math.max(0, Math.min(1, 2 - min / this.#spread));
    const scale = (trust * SOUND_WEIGHT) / this.#spread;
    for (let k = 0; k < cost.length; k++) cost[k] = scale * (cost[k]! - min);
  }

  /** Forgets the previous pick (after the composite faded out): the next pick jumps for free. */
  reset(): void {
    this.#prev = -1;
  }

  /**
   * The crops for the wanted mouth (and sound) on a base frame of head pose `pose`; remembers the
   * cheapest as the previous pick.
   */
  select(mouth: MouthParams, sound?: ArrayLike<number>, pose?: readonly [number, number]): MouthPick {
    const poses = pose && this.#pose.length > 0 ? this.#pose : undefined;
    const W = SELECTION_WEIGHTS;
    this.#soundCosts(sound);
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
      cost += this.#soundCost[k]! + this.#fixed[k]!;
      if (poses)
        cost += POSE_WEIGHT * (Math.abs(poses[2 * k]! - pose![0]) + Math.abs(poses[2 * k + 1]! - pose![1]));
      if (this.#prev >= 0) cost += JUMP_COST * Math.min(1, Math.abs(this.#source[k]! - next) / JUMP_SPAN);
      if (k === this.#prev) cost += HOLD_COST;
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
    const near = Math.abs(this.#source[a]! - this.#source[b]!) <= BLEND_SPAN;
    if (wb < MIN_SECOND_WEIGHT || !near) return { a, wa: 1, b: a, wb: 0 };
    return { a, wa: 1 - wb, b, wb };
  }
}
