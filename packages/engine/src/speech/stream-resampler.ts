/**
 * Resamples a stream as it arrives: each output sample is produced once every input sample its
 * kernel reads has come (16 input samples of look-ahead: under a millisecond), so the result is
 * exactly what resampling the whole clip at once gives, and timings stay where they were.
 */
import { floatToInt16, resampleRange, resampleReach } from './resample.js';

export class StreamResampler {
  readonly #toHz: number;
  #fromHz: number | undefined;
  #input = new Int16Array(48_000);
  #length = 0;
  #produced = 0;

  constructor(toHz: number) {
    this.#toHz = toHz;
  }

  /** Adds input at `fromHz` (fixed for the stream); returns the output samples now complete. */
  push(pcm: Int16Array, fromHz: number): Int16Array {
    if (this.#fromHz !== undefined && this.#fromHz !== fromHz)
      throw new Error(`sample rate changed mid-stream (${this.#fromHz} → ${fromHz} Hz)`);
    this.#fromHz = fromHz;
    if (this.#length + pcm.length > this.#input.length) {
      const grown = new Int16Array(Math.max(this.#input.length * 2, this.#length + pcm.length));
      grown.set(this.#input.subarray(0, this.#length));
      this.#input = grown;
    }
    this.#input.set(pcm, this.#length);
    this.#length += pcm.length;
    const ratio = fromHz / this.#toHz;
    const ready = Math.floor((this.#length - 1 - resampleReach(fromHz, this.#toHz)) / ratio) + 1;
    return this.#emit(Math.min(ready, this.#total()));
  }

  /** The input ended: the remaining output samples. */
  end(): Int16Array {
    return this.#emit(this.#total());
  }

  #total(): number {
    return this.#fromHz === undefined ? 0 : Math.round((this.#length * this.#toHz) / this.#fromHz);
  }

  #emit(upTo: number): Int16Array {
    if (upTo <= this.#produced || this.#fromHz === undefined) return new Int16Array(0);
    const from = this.#produced;
    this.#produced = upTo;
    if (this.#fromHz === this.#toHz) return this.#input.slice(from, upTo);
    return floatToInt16(resampleRange(this.#input, this.#length, this.#fromHz, this.#toHz, from, upTo));
  }
}
