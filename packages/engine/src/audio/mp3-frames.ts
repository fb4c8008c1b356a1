/**
 * The duration of an MP3 file from its frame headers, without decoding it: walks the chain of
 * MPEG audio frames (each header gives its length and sample count), so an upload's length is
 * known before any PCM is allocated. Bytes between frames (tags, junk) are skipped.
 */

const RATES: Record<number, readonly number[]> = {
  3: [44_100, 48_000, 32_000], // MPEG-1
  2: [22_050, 24_000, 16_000], // MPEG-2
  0: [11_025, 12_000, 8000], // MPEG-2.5
};
// kbit/s by [MPEG-1 ? 0 : 1][layer 1..3][index]
const V1 = {
  1: [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  2: [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  3: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
} as const;
const V2 = {
  1: [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  3: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
} as const;
/** The lowest bitrate an MP3 can have: bounds the duration of what cannot be walked. */
const MIN_KBPS = 8;

export interface Mp3Frame {
  bytes: number;
  samples: number;
  sampleRateHz: number;
}

/** The frame whose header starts at `at`, or undefined when no valid header is there. */
export function mp3FrameAt(b: Uint8Array, at: number): Mp3Frame | undefined {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1]! & 0xe0) !== 0xe0) return undefined;
  const version = (b[at + 1]! >> 3) & 3;
  const layerBits = (b[at + 1]! >> 1) & 3;
  const bitrateIndex = b[at + 2]! >> 4;
  const rateIndex = (b[at + 2]! >> 2) & 3;
  const padding = (b[at + 2]! >> 1) & 1;
  const rates = RATES[version];
  if (!rates || layerBits === 0 || rateIndex === 3 || bitrateIndex === 0 || bitrateIndex === 15)
    return undefined;
  const layer = (4 - layerBits) as 1 | 2 | 3;
  const kbps = (version === 3 ? V1 : V2)[layer][bitrateIndex]!;
  const sampleRateHz = rates[rateIndex]!;
  const samples = layer === 1 ? 384 : layer === 3 && version !== 3 ? 576 : 1152;
  const bytes =
    layer === 1
      ? (Math.floor((12_000 * kbps) / sampleRateHz) + padding) * 4
      : Math.floor(((samples / 8) * 1000 * kbps) / sampleRateHz) + padding;
  return { bytes, samples, sampleRateHz };
}

/**
 * Seconds of audio in the MP3 frames of `b` starting at `from`. Free-format streams (no bitrate
 * in their headers) cannot be walked; their length is bounded by the lowest MP3 bitrate instead.
 */
export function mp3DurationSec(b: Uint8Array, from = 0): number {
  let seconds = 0;
  let frames = 0;
  let at = from;
  while (at + 4 <= b.length) {
    const f = mp3FrameAt(b, at);
    if (!f || f.bytes < 4) {
      at++;
      continue;
    }
    seconds += f.samples / f.sampleRateHz;
    frames++;
    at += f.bytes;
  }
  if (frames === 0) return ((b.length - from) * 8) / (MIN_KBPS * 1000);
  return seconds;
}
