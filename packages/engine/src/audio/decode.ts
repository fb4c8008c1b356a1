/**
 * Uploaded audio → mono 48 kHz PCM on the media clock, or AudioValidationError with a reason a
 * developer can act on (DESIGN §3.6: junk, empty, truncated, shorter than 100 ms, unsupported).
 */
import { MIN_AUDIO_DURATION_MS } from '@mouthpiece/protocol';
import { floatToInt16, resample } from '../speech/resample.js';
import { decodeMp3, looksLikeMp3 } from './mp3.js';
import { AudioValidationError, isWav, readWav, type PcmAudio } from './wav.js';
import { SAMPLE_RATE_HZ } from '../clock/media-clock.js';

export { AudioValidationError };

export interface DecodedAudio {
  pcm: Int16Array;
  durationSec: number;
  sourceRateHz: number;
  format: 'mp3' | 'wav';
}

export async function decodeAudio(bytes: Uint8Array): Promise<DecodedAudio> {
  if (bytes.length === 0) throw new AudioValidationError('the file is empty');
  let pcm: PcmAudio;
  let format: DecodedAudio['format'];
  if (isWav(bytes)) {
    pcm = readWav(bytes);
    format = 'wav';
  } else if (looksLikeMp3(bytes)) {
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
