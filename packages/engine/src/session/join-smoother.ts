/**
 * Seamless joins for the speech player: two pieces of speech made separately (a turn's sentences,
 * a stream that ran dry and resumed) rarely meet at the same sample value, and the step where they
 * meet is a click. The smoother is told, chunk by chunk, which spans of the output were copied
 * from which piece and where silence was played instead. A complete piece fades out over its last
 * `JOIN_RAMP_MS`; wherever the source changes the smoother crossfades, over the same time with a
 * raised cosine, from the sound before (held at its last level, its slope dying away) to the new
 * one: no step in the level and none in its slope (pieces start and end mid-waveform, often
 * steeply, and bleeding away the step alone still leaves a kink that clicks). Nothing is delayed
 * or moved: the output keeps its length and every phoneme and word its sample.
 */
import { msToSamples } from '../clock/media-clock.js';

export const JOIN_RAMP_MS = 3;
const RAMP = msToSamples(JOIN_RAMP_MS);
/** Weight of the sound before at the k-th sample after a join: from just under 1 down to 0. */
const WEIGHTS = Float32Array.from(
  { length: RAMP },
  (_, k) => 0.5 * (1 + Math.cos((Math.PI * (k + 1)) / (RAMP + 1))),
);
/** How fast the held sound's slope dies away (samples): it goes on at most this many slopes further. */
const SLOPE_SAMPLES = 8;

/** Where the output continues seamlessly: a piece at a sample, or silence. */
type Source = { piece: number; pos: number } | 'silence';

export class JoinSmoother {
  /** The last two samples played (after smoothing). */
  #last = 0;
  #before = 0;
  /** The sound before the last join: its level and slope there. */
  #hold = 0;
  #slope = 0;
  /** Samples of the current ramp already played (RAMP: none running). */
  #k = RAMP;
  #next: Source = 'silence';
  /** Where the source changes in the chunk being filled. */
  readonly #joins: number[] = [];

  /** A new turn: it starts from silence. */
  reset(): void {
    this.#next = 'silence';
  }

  /**
   * `n` samples of piece `piece` from sample `pos` were copied to `out` at `at`; `length` is the
   * piece's when it is complete (its end fades out), undefined while it still streams in.
   */
  copied(out: Int16Array, at: number, piece: number, pos: number, n: number, length?: number): void {
    if (length !== undefined)
      for (let i = Math.max(pos, length - RAMP); i < pos + n; i++)
        out[at + i - pos] = Math.round(out[at + i - pos]! * (1 - WEIGHTS[length - 1 - i]!));
    const next = this.#next;
    if (next === 'silence' || next.piece !== piece || next.pos !== pos) this.#joins.push(at);
    this.#next = { piece, pos: pos + n };
  }

  /** The chunk is silence from `at` to `end` (a wait, a stream running dry, the turn's end). */
  silentFrom(at: number, end: number): void {
    if (at >= end || this.#next === 'silence') return;
    this.#joins.push(at);
    this.#next = 'silence';
  }

  /** Smooths the chunk in place at the joins it was told of. */
  smooth(out: Int16Array): void {
    const joins = this.#joins;
    if (joins.length === 0 && this.#k >= RAMP) {
      if (out.length > 1) [this.#before, this.#last] = [out[out.length - 2]!, out[out.length - 1]!];
      return;
    }
    let j = 0;
    for (let n = 0; n < out.length; n++) {
      if (joins[j] === n) {
        this.#hold = this.#last;
        this.#slope = this.#last - this.#before;
        this.#k = 0;
        j++;
      }
      if (this.#k < RAMP) {
        const k = this.#k++;
        const held = this.#hold + this.#slope * SLOPE_SAMPLES * (1 - Math.exp(-(k + 1) / SLOPE_SAMPLES));
        const v = Math.round(out[n]! + (held - out[n]!) * WEIGHTS[k]!);
        out[n] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
      }
      this.#before = this.#last;
      this.#last = out[n]!;
    }
    joins.length = 0;
  }
}
