/**
 * Drives @echogarden/espeak-ng-emscripten directly: one synthesizer per thread, sentences in,
 * 22 050 Hz PCM out with phoneme and word events at exact sample positions
 * (`espeak_EVENT.get_sample()`), then resampled to the 48 kHz media clock with no delay.
 * Synthesis blocks its thread: run it in a worker (tts.ts).
 */
import init from '@echogarden/espeak-ng-emscripten';
import { floatToInt16, resample } from './resample.js';
import type { SpeechSegment } from './types.js';
import { SAMPLE_RATE_HZ } from '../clock/media-clock.js';

const ESPEAK_RATE_HZ = 22_050;
const EVENT_TYPES = [
  'list_terminated',
  'word',
  'sentence',
  'mark',
  'play',
  'end',
  'msg_terminated',
  'phoneme',
  'samplerate',
];

interface EspeakModule {
  eSpeakNGWorker: new () => EspeakWorker;
  addFunction(fn: (...args: number[]) => number, sig: string): number;
  removeFunction(ptr: number): void;
  wrapPointer(
    ptr: number,
    cls: unknown,
  ): { get_type(): number; get_sample(): number; get_text_position(): number; get_length(): number };
  espeak_EVENT: unknown;
  HEAP16: Int16Array;
}
interface EspeakWorker {
  list_voices(): EspeakVoiceEntry[];
  set_voice(name: string): number;
  set_rate(wpm: number): number;
  synth_(text: string, cb: number): void;
  getSizeOfEventStruct_(): number;
  getStringIDFromEventStruct_(ptr: number): string;
}

/** One voice of espeak-ng's data, as its voices list gives it. */
export interface EspeakVoiceEntry {
  name: string;
  identifier: string;
  languages: Array<{ priority: number; name: string }>;
}

export class Espeak {
  readonly #m: EspeakModule;
  readonly #w: EspeakWorker;
  #voice = '';
  #rate = 0;

  private constructor(m: EspeakModule) {
    this.#m = m;
    this.#w = new m.eSpeakNGWorker();
  }

  static async load(): Promise<Espeak> {
    const m = await (init as unknown as () => Promise<EspeakModule>)();
    return new Espeak(m);
  }

  /** The voices the bundled data holds (espeak-languages.ts lists them with their names). */
  voices(): EspeakVoiceEntry[] {
    return this.#w.list_voices();
  }

  /** Synthesizes one sentence. `speed` 1 = 175 words per minute. */
  synthesize(text: string, espeakVoice: string, speed: number): SpeechSegment {
    const { chunks, phonemes, words } = this.#run(text, espeakVoice, speed, true);
    let total = 0;
    for (const c of chunks) total += c.length;
    const pcm22 = new Int16Array(total);
    let at = 0;
    for (const c of chunks) {
      pcm22.set(c, at);
      at += c.length;
    }
    const scale = SAMPLE_RATE_HZ / ESPEAK_RATE_HZ;
    const pcm = floatToInt16(resample(pcm22, ESPEAK_RATE_HZ, SAMPLE_RATE_HZ));
    const toOut = (s: number): number => Math.min(pcm.length, Math.round(s * scale));
    return {
      pcm,
      sampleRateHz: SAMPLE_RATE_HZ,
      phonemes: phonemes.map((p) => ({ ipa: p.ipa, startSample: toOut(p.sample) })),
      words: words.map((wd, i) => ({
        // espeak text positions are 1-based character indices
        text: [...text].slice(wd.pos - 1, wd.pos - 1 + wd.len).join(''),
        startSample: toOut(wd.sample),
        endSample: toOut(words[i + 1]?.sample ?? lastVoiced(phonemes, words, total)),
      })),
    };
  }

  /** The phoneme ids espeak says for a text, in order, without keeping its audio (tests). */
  phonemes(text: string, espeakVoice: string): string[] {
    return this.#run(text, espeakVoice, 450 / 175, false).phonemes.map((p) => p.ipa);
  }

  #run(text: string, espeakVoice: string, speed: number, keepAudio: boolean): EspeakRun {
    if (espeakVoice !== this.#voice) {
      const rc = this.#w.set_voice(espeakVoice);
      if (rc !== 0) throw new Error(`espeak-ng has no voice "${espeakVoice}"`);
      this.#voice = espeakVoice;
      this.#rate = 0;
    }
    const rate = Math.round(Math.min(450, Math.max(80, 175 * speed)));
    if (rate !== this.#rate) {
      this.#w.set_rate(rate);
      this.#rate = rate;
    }
    const m = this.#m;
    const w = this.#w;
    const size = w.getSizeOfEventStruct_();
    const run: EspeakRun = { chunks: [], phonemes: [], words: [] };
    const cb = m.addFunction((audioPtr: number, length: number, evPtr: number): number => {
      if (keepAudio && length > 0) run.chunks.push(m.HEAP16.slice(audioPtr / 2, audioPtr / 2 + length));
      for (let p = evPtr; ; p += size) {
        const ev = m.wrapPointer(p, m.espeak_EVENT);
        const type = EVENT_TYPES[ev.get_type()];
        if (type === 'list_terminated' || type === undefined) break;
        if (type === 'phoneme')
          run.phonemes.push({ ipa: w.getStringIDFromEventStruct_(p), sample: ev.get_sample() });
        else if (type === 'word')
          run.words.push({ pos: ev.get_text_position(), len: ev.get_length(), sample: ev.get_sample() });
      }
      return 0;
    }, 'iiii');
    try {
      w.synth_(text, cb);
    } finally {
      m.removeFunction(cb);
    }
    return run;
  }
}

interface EspeakRun {
  chunks: Int16Array[];
  phonemes: Array<{ ipa: string; sample: number }>;
  words: Array<{ pos: number; len: number; sample: number }>;
}

/** Where the last word's sound ends: the first pause event after the last word began, else the end. */
function lastVoiced(
  phonemes: Array<{ ipa: string; sample: number }>,
  words: Array<{ sample: number }>,
  total: number,
): number {
  const lastWordStart = words.at(-1)?.sample ?? 0;
  return phonemes.find((p) => p.ipa === '' && p.sample > lastWordStart)?.sample ?? total;
}
