/**
 * Cheap audio sniffing for the test fake: recognizes WAV (duration from its header) and MP3 (frame
 * sync after an optional ID3 tag; duration as declared). The real engine decodes and validates
 * fully (src/audio/); this only lets control-plane tests exercise valid and invalid uploads.
 */
import { MIN_AUDIO_DURATION_MS } from '@mouthpiece/protocol';

export type SniffResult = { ok: true; durationSec: number } | { ok: false; reason: string };

export function sniffAudio(bytes: Uint8Array, declaredDurationSec: number): SniffResult {
  if (bytes.length === 0) return { ok: false, reason: 'the file is empty' };
  const ascii = (at: number, n: number): string => String.fromCharCode(...bytes.subarray(at, at + n));
  let durationSec: number;
  if (ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WAVE') {
    const d = wavDurationSec(bytes);
    if (d === undefined) return { ok: false, reason: 'the WAV file has no readable fmt/data chunk' };
    durationSec = d;
  } else if (isMp3(bytes)) {
    durationSec = declaredDurationSec;
  } else {
    return { ok: false, reason: 'not an MP3 or WAV file' };
  }
  if (durationSec * 1000 < MIN_AUDIO_DURATION_MS) {
    return { ok: false, reason: `audio shorter than ${MIN_AUDIO_DURATION_MS} ms` };
  }
  return { ok: true, durationSec };
}

function isMp3(b: Uint8Array): boolean {
  let at = 0;
  if (b[0] === 0x49 && b[1] === 0x44 && b[2] === 0x33 && b.length >= 10) {
    const size = ((b[6]! & 0x7f) << 21) | ((b[7]! & 0x7f) << 14) | ((b[8]! & 0x7f) << 7) | (b[9]! & 0x7f);
    at = 10 + size;
  }
  return b.length > at + 4 && b[at] === 0xff && (b[at + 1]! & 0xe0) === 0xe0;
}

function wavDurationSec(b: Uint8Array): number | undefined {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let byteRate = 0;
  for (let at = 12; at + 8 <= b.length;) {
    const id = String.fromCharCode(...b.subarray(at, at + 4));
    const size = view.getUint32(at + 4, true);
    if (id === 'fmt ' && at + 16 <= b.length) byteRate = view.getUint32(at + 16, true);
    if (id === 'data') {
      const dataBytes = Math.min(size, b.length - at - 8);
      return byteRate > 0 ? dataBytes / byteRate : undefined;
    }
    at += 8 + size + (size % 2);
  }
  return undefined;
}
