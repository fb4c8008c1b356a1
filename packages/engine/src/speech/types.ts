import type { SAMPLE_RATE_HZ } from '../clock/media-clock.js';

/** One synthesized sentence on the 48 kHz media clock (sample positions relative to its start). */
export interface SpeechSegment {
  pcm: Int16Array;
  sampleRateHz: typeof SAMPLE_RATE_HZ;
  phonemes: Array<{ ipa: string; startSample: number }>;
  words: Array<{ text: string; startSample: number; endSample: number }>;
}

export interface SynthesisRequest {
  text: string;
  voiceId: string;
  speed: number;
  /** Aborts the request: withdrawn if still waiting, its result dropped if in flight. */
  signal?: AbortSignal;
}
