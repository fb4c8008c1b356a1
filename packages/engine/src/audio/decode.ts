/**
 * Uploaded audio → mono 48 kHz PCM on the media clock, or AudioValidationError with a reason a
 * developer can act on (docs/design.md §4.6: junk, empty, truncated, shorter than 100 ms, unsupported).
 */
import { MAX_AUDIO_DURATION_MS, MIN_AUDIO_DURATION_MS } from '@mouthpiece/protocol';
import { floatToInt16, resample } from '../speech/resample.js';
import { decodeMp3, id3Size, looksLikeMp3 } from './mp3.js';
import { mp3DurationSec } from './mp3-frames.js';
import { AudioValidationError, isWav, readWav, wavDurationSec, type PcmAudio } from './wav.js';
import { SAMPLE_RATE_HZ } from '../clock/media-clock.js';

export { AudioValidationError };

export interface DecodedAudio {
  pcm: Int16Array;
  durationSec: number;
  sourceRateHz: number;
  format: 'mp3' | 'wav';
}

/**
 * Refuses audio longer than the cap from its headers, before any PCM is allocated: a small
 * low-bitrate MP3 can hold hours of sound, and decoded audio costs about 200 kB per second.
 */
function checkLength(durationSec: number): void {
  if (durationSec * 1000 > MAX_AUDIO_DURATION_MS)
    throw new AudioValidationError(
      `the audio is ${formatDuration(durationSec)} long; at most ${formatDuration(MAX_AUDIO_DURATION_MS / 1000)} per upload`,
    );
}

function formatDuration(sec: number): string {
  const m = Math.floor(sec / 60);
  const s = Math.round(sec - m * 60);
  return m === 0 ? `${s} s` : s === 0 ? `${m} min` : `${m} min ${s} s`;
}

export async function decodeAudio(bytes: Uint8Array): Promise<DecodedAudio> {
  if (bytes.length === 0) throw new AudioValidationError('the file is empty');
  let pcm: PcmAudio;
  let format: DecodedAudio['format'];
  if (isWav(bytes)) {
    checkLength(wavDurationSec(bytes) ?? 0);
    pcm = readWav(bytes);
    format = 'wav';
  } else if (looksLikeMp3(bytes)) {
    checkLength(mp3DurationSec(bytes, id3Size(bytes)));
    pcm = await decodeMp3(bytes);
    format = 'mp3';
  } else {
    throw new AudioValidationError('not an MP3 or WAV file');
  }
  const durationSec = pcm.samples.length / pcm.sampleRateHz;
  if (durationSec * 1000 < MIN_AUDIO_DURATION_MS)
    throw new AudioValidationError(`the audio is shorter than ${MIN_AUDIO_DURATION_MS} ms`);
  const out = floatToInt16(resample(pcm.samples, pcm.sampleRateHz, SAMPLE_RATE_HZ), 32767);
  return { pcm: out, durationSec, sourceRateHz: pcm.sampleRateHz, format };
}
