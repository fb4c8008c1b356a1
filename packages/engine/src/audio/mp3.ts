/**
 * MP3 with mpg123-decoder (WASM, gapless). It does not throw on junk (docs/design.md §3.4), so the checks are
 * ours: no decode errors, a real MPEG sample rate, and for files with a Xing/Info header, the
 * decoded length against the header's frame count (truncation).
 */
import { MPEGDecoder } from 'mpg123-decoder';
import { AudioValidationError, type PcmAudio } from './wav.js';

const MPEG_RATES = new Set([8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]);

export function looksLikeMp3(b: Uint8Array): boolean {
  const at = id3Size(b);
  return b.length > at + 4 && b[at] === 0xff && (b[at + 1]! & 0xe0) === 0xe0;
}

export function id3Size(b: Uint8Array): number {
  if (b.length >= 10 && b[0] === 0x49 && b[1] === 0x44 && b[2] === 0x33) {
    return 10 + (((b[6]! & 0x7f) << 21) | ((b[7]! & 0x7f) << 14) | ((b[8]! & 0x7f) << 7) | (b[9]! & 0x7f));
  }
  return 0;
}

/** Frames × samples-per-frame from a Xing/Info header in the first frame, if present. */
export function xingSamples(b: Uint8Array): number | undefined {
  const at = id3Size(b);
  if (b.length < at + 200) return undefined;
  const version = (b[at + 1]! >> 3) & 3; // 3 = MPEG1
  const layer = (b[at + 1]! >> 1) & 3; // 1 = Layer III
  const samplesPerFrame = layer === 1 ? (version === 3 ? 1152 : 576) : 1152;
  for (let i = at + 4; i < Math.min(b.length - 12, at + 64); i++) {
    const tag = String.fromCharCode(b[i]!, b[i + 1]!, b[i + 2]!, b[i + 3]!);
    if (tag !== 'Xing' && tag !== 'Info') continue;
    const flags = (b[i + 4]! << 24) | (b[i + 5]! << 16) | (b[i + 6]! << 8) | b[i + 7]!;
    if (!(flags & 1)) return undefined;
    const frames = ((b[i + 8]! << 24) | (b[i + 9]! << 16) | (b[i + 10]! << 8) | b[i + 11]!) >>> 0;
    return frames * samplesPerFrame;
  }
  return undefined;
}

let decoder: MPEGDecoder | undefined;

/**
 * mpg123-decoder prints each decode error with `console.error`, a plain-text line in the JSON log
 * that any client could repeat at will with bad uploads. The errors are counted in its answer and
 * become a 400, so its lines are dropped (decode is synchronous: nothing else prints meanwhile).
 */
function quietly<T>(fn: () => T): T {
  const print = console.error;
  console.error = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith('mpg123-decoder:')) return;
    print(...args);
  };
  try {
    return fn();
  } finally {
    console.error = print;
  }
}

export async function decodeMp3(bytes: Uint8Array): Promise<PcmAudio> {
  decoder ??= new MPEGDecoder();
  await decoder.ready;
  await decoder.reset();
  const d = decoder;
  const r = quietly(() => d.decode(bytes));
  if (r.errors.length > 0)
    throw new AudioValidationError(`the MP3 data has ${r.errors.length} decode errors (not MP3, or damaged)`);
  if (!MPEG_RATES.has(r.sampleRate) || r.samplesDecoded === 0)
    throw new AudioValidationError('no MP3 audio could be decoded');
  const expected = xingSamples(bytes);
  if (expected !== undefined && r.samplesDecoded < 0.98 * (expected - 1152 * 2)) {
    throw new AudioValidationError(
      `the MP3 file is truncated (decoded ${(r.samplesDecoded / r.sampleRate).toFixed(2)} s of ${(expected / r.sampleRate).toFixed(2)} s)`,
    );
  }
  const chans = r.channelData.filter((c) => c.length > 0);
  const n = r.samplesDecoded;
  const mono = new Float32Array(n);
  for (const c of chans) for (let i = 0; i < n; i++) mono[i]! += c[i]! / chans.length;
  return { samples: mono, sampleRateHz: r.sampleRate };
}
