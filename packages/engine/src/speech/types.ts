import type { SAMPLE_RATE_HZ } from '../clock/media-clock.js';

/** One synthesized sentence on the 48 kHz media clock (sample positions relative to its start). */
export interface SpeechSegment {
  pcm: Int16Array;
  sampleRateHz: typeof SAMPLE_RATE_HZ;
  phonemes: Array<{ ipa: string; startSample: number }>;
  words: Array<{ text: string; startSample: number; endSample: number }>;
  /**
   * Where the phonemes come from: the synthesizer itself (`exact`, the default), espeak's reading
   * placed on the provider's character timings (`placed`) or aligned to its audio (`aligned`);
   * `none` when nothing fitted (the audio-only model drives the mouth).
   */
  timing?: 'exact' | 'placed' | 'aligned' | 'none';
  /**
   * A streamed provider's timings, still being worked out when its audio is complete (espeak's
   * reading placed or aligned): the sentence plays meanwhile, and the next one is not held back.
   */
  later?: Promise<Pick<SpeechSegment, 'phonemes' | 'words' | 'timing'>>;
}

export interface SynthesisRequest {
  text: string;
  voiceId: string;
  speed: number;
  /** Aborts the request: withdrawn if still waiting, its connection closed if in flight. */
  signal?: AbortSignal;
  /** Streams the audio (48 kHz) as it arrives, before the whole segment resolves. */
  onAudio?: (pcm: Int16Array) => void;
  /** Not the voice but espeak's reading of the text in the voice's language (a lip-sync reference). */
  reading?: boolean;
}
