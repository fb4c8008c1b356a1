/**
 * Seamless joins for the speech player: two pieces of speech made separately (a turn's sentences,
 * a stream that ran dry and resumed) rarely meet at the same sample value, and the step where they
 * meet is a click. The smoother is told, chunk by chunk, which spans of the output were copied
 * from which piece and where silence was played instead; wherever the source changes it adds the
 * step between the last sample played and the next one back in, fading out over `RAMP_MS` with a
 * raised cosine (an offset crossfade). Nothing is delayed or moved: the output keeps its length
 * and every phoneme and word its sample.
 */
import { msToSamples } from '../clock/media-clock.js';

export const JOIN_RAMP_MS = 3;
const RAMP = msToSamples(JOIN_RAMP_MS);
/** Weight of the step at the k-th sample after a join: from just under 1 down to 0. */
const WEIGHTS = Float32Array.from({ length: RAMP }, (_, k) => 0.5 * (1 + Math.cos((Math.PI * (k + 1)) / (RAMP + 1))));

/** Where the output continues seamlessly: a piece at a sample, or silence. */
type Source = { piece: number; pos: number } | 'silence';

export class JoinSmoother {
  /** The last sample played (after smoothing). */
  #last = 0;
  #offset = 0;
  /** Samples of the current ramp already played (RAMP: none running). */
  #k = RAMP;
  #next: Source = 'silence';
  /** Where the source changes in the chunk being filled. */
  readonly #joins: number[] = [];

  /** A new turn: it starts from silence. */
  reset(): void {
    this.#next = 'silence';
  }

  /** `n` samples of piece `piece` from sample `pos` were copied to the chunk at `at`. */
  copied(at: number, piece: number, pos: number, n: number): void {
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
      if (out.length > 0) this.#last = out[out.length - 1]!;
      return;
    }
    let j = 0;
    for (let n = 0; n < out.length; n++) {
      if (joins[j] === n) {
        this.#offset = this.#last - out[n]!;
        this.#k = 0;
        j++;
      }
      if (this.#k < RAMP) {
        const v = Math.round(out[n]! + this.#offset * WEIGHTS[this.#k++]!);
        out[n] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
      }
      this.#last = out[n]!;
    }
    joins.length = 0;
  }
}
