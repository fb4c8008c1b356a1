/** RIFF/WAVE reader: PCM 8/16/24/32-bit integer and 32/64-bit float, any channels and rate → mono float. */
import { CodedError } from '@mouthpiece/protocol';
export interface PcmAudio {
  samples: Float32Array;
  sampleRateHz: number;
}

export class AudioValidationError extends CodedError {
  static override code = 'ERR_AUDIO_INVALID';
  constructor(reason: string) {
    super(reason);
    this.name = 'AudioValidationError';
  }
}

export function isWav(b: Uint8Array): boolean {
  return b.length >= 12 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WAVE';
}

function ascii(b: Uint8Array, at: number, n: number): string {
  return String.fromCharCode(...b.subarray(at, at + n));
}

/** The seconds of audio a WAV file's header announces (its data chunk as far as the file holds it). */
export function wavDurationSec(b: Uint8Array): number | undefined {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let frameBytes = 0;
  let rate = 0;
  for (let at = 12; at + 8 <= b.length;) {
    const id = ascii(b, at, 4);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === 'fmt ' && body + 16 <= b.length) {
      frameBytes = (view.getUint16(body + 14, true) / 8) * view.getUint16(body + 2, true);
      rate = view.getUint32(body + 4, true);
    } else if (id === 'data') {
      if (frameBytes <= 0 || rate <= 0) return undefined;
      return Math.floor(Math.min(size, b.length - body) / frameBytes) / rate;
    }
    at = body + size + (size % 2);
  }
  return undefined;
}

export function readWav(b: Uint8Array): PcmAudio {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let fmt: { format: number; channels: number; rate: number; bits: number } | undefined;
  for (let at = 12; at + 8 <= b.length;) {
    const id = ascii(b, at, 4);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > b.length) throw new AudioValidationError('the WAV fmt chunk is truncated');
      let format = view.getUint16(body, true);
      if (format === 0xfffe && size >= 40) format = view.getUint16(body + 24, true); // WAVE_FORMAT_EXTENSIBLE
      fmt = {
        format,
        channels: view.getUint16(body + 2, true),
        rate: view.getUint32(body + 4, true),
        bits: view.getUint16(body + 14, true),
      };
    } else if (id === 'data') {
      if (!fmt) throw new AudioValidationError('the WAV file has a data chunk before its fmt chunk');
      const { format, channels, rate, bits } = fmt;
      if (channels < 1 || channels > 8 || rate < 8000 || rate > 192_000)
        throw new AudioValidationError(`unsupported WAV layout (${channels} channels at ${rate} Hz)`);
      const float = format === 3;
      if (
        !(format === 1 || float) ||
        (float && bits !== 32 && bits !== 64) ||
        (!float && ![8, 16, 24, 32].includes(bits))
      ) {
        throw new AudioValidationError(`unsupported WAV encoding (format ${format}, ${bits} bits)`);
      }
      const bytesPer = bits / 8;
      const available = Math.min(size, b.length - body);
      const frames = Math.floor(available / (bytesPer * channels));
      const out = new Float32Array(frames);
      for (let f = 0; f < frames; f++) {
        let acc = 0;
        for (let c = 0; c < channels; c++) {
          const p = body + (f * channels + c) * bytesPer;
          acc += sampleAt(view, p, bits, float);
        }
        out[f] = acc / channels;
      }
      return { samples: out, sampleRateHz: rate };
    }
    at = body + size + (size % 2);
  }
  throw new AudioValidationError('the WAV file has no data chunk');
}

function sampleAt(v: DataView, p: number, bits: number, float: boolean): number {
  if (float) return bits === 32 ? v.getFloat32(p, true) : v.getFloat64(p, true);
  switch (bits) {
    case 8:
      return (v.getUint8(p) - 128) / 128;
    case 16:
      return v.getInt16(p, true) / 32768;
    case 24:
      return (v.getUint8(p) | (v.getUint8(p + 1) << 8) | (v.getInt8(p + 2) << 16)) / 8_388_608;
    default:
      return v.getInt32(p, true) / 2_147_483_648;
  }
}
