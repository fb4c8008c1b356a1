/**
 * Raw audio bytes as they arrive → 16-bit mono samples: little-endian s16 (a sample may straddle
 * two network chunks), or a WAV stream (RIFF header parsed as it arrives; 16-bit PCM, mono or
 * stereo mixed down; a streaming WAV's unknown data size is fine). Anything else is `bad_audio`.
 */
import { ProviderError, type ProviderName } from '../provider.js';

export class PcmStream {
  readonly #provider: ProviderName;
  #rate: number;
  #channels = 1;
  /** Bytes not yet turned into samples (a header in progress, or an odd byte). */
  #held: Buffer = Buffer.alloc(0);
  /** 'detect' until the first bytes show whether a RIFF header comes. */
  #state: 'detect' | 'header' | 'data';
  #samples = 0;

  constructor(provider: ProviderName, o: { sampleRateHz: number; wav: 'auto' | 'never' }) {
    this.#provider = provider;
    this.#rate = o.sampleRateHz;
    this.#state = o.wav === 'auto' ? 'detect' : 'data';
  }

  get sampleRateHz(): number {
    return this.#rate;
  }

  /** Samples decoded so far. */
  get samples(): number {
    return this.#samples;
  }

  /** Decodes what it can of `bytes`; returns the new samples (maybe none). */
  push(bytes: Uint8Array): Int16Array {
    this.#held = this.#held.length ? Buffer.concat([this.#held, bytes]) : Buffer.from(bytes);
    if (this.#state === 'detect') {
      if (this.#held.length < 4) return new Int16Array(0);
      const magic = this.#held.toString('latin1', 0, 4);
      const other = ['ID3', 'OggS', 'fLaC', '{', '<'].find((m) => magic.startsWith(m));
      if (other) this.#bad(`"${other}…" where PCM or WAV was expected`);
      this.#state = magic === 'RIFF' ? 'header' : 'data';
    }
    if (this.#state === 'header' && !this.#parseHeader()) return new Int16Array(0);
    const frameBytes = 2 * this.#channels;
    const usable = this.#held.length - (this.#held.length % frameBytes);
    const out = new Int16Array(usable / frameBytes);
    for (let i = 0; i < out.length; i++) {
      let acc = 0;
      for (let c = 0; c < this.#channels; c++) acc += this.#held.readInt16LE(i * frameBytes + 2 * c);
      out[i] = Math.round(acc / this.#channels);
    }
    this.#held = this.#held.subarray(usable);
    this.#samples += out.length;
    return out;
  }

  /** The stream ended: throws `no_audio` when it held no sample. */
  end(): void {
    if (this.#samples === 0)
      throw new ProviderError(this.#provider, 'no_audio', `${this.#provider}: the response held no audio`);
  }

  /** Reads RIFF chunks up to `data`; true once the samples begin. */
  #parseHeader(): boolean {
    const b = this.#held;
    if (b.length < 12) return false;
    if (b.toString('latin1', 8, 12) !== 'WAVE') this.#bad('a RIFF stream that is not WAVE');
    let at = 12;
    for (;;) {
      if (b.length < at + 8) return false;
      const id = b.toString('latin1', at, at + 4);
      const size = b.readUInt32LE(at + 4);
      if (id === 'data') {
        this.#held = b.subarray(at + 8);
        this.#state = 'data';
        return true;
      }
      if (size > 1 << 20) this.#bad(`a ${size}-byte "${id}" chunk`);
      if (b.length < at + 8 + size) return false;
      if (id === 'fmt ') {
        const format = b.readUInt16LE(at + 8);
        const channels = b.readUInt16LE(at + 10);
        const bits = b.readUInt16LE(at + 22);
        if ((format !== 1 && format !== 0xfffe) || bits !== 16 || channels < 1 || channels > 2)
          this.#bad(`WAV format ${format}, ${bits} bits, ${channels} channels (16-bit PCM expected)`);
        this.#channels = channels;
        this.#rate = b.readUInt32LE(at + 12);
        if (this.#rate < 8000 || this.#rate > 96_000) this.#bad(`a ${this.#rate} Hz WAV`);
      }
      at += 8 + size + (size % 2);
    }
  }

  #bad(what: string): never {
    throw new ProviderError(this.#provider, 'bad_audio', `${this.#provider}: unusable audio (${what})`);
  }
}
