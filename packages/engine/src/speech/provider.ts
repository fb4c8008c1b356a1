/**
 * The speech-synthesis interface every voice provider implements (docs/design.md §10): one
 * sentence or clause of text, a voice, a speed and an abort signal in; PCM chunks streamed to a
 * sink as they arrive (any sample rate) and, at the end, whatever timing the provider has
 * (phonemes, characters, or none). The router (speech/router.ts) turns that into 48 kHz speech
 * with phoneme timings; the engine session never knows which provider spoke.
 */
import type { VoiceDef } from './voices.js';
import { CodedError } from '@mouthpiece/protocol';

export type ProviderName = 'espeak' | 'flite' | 'elevenlabs' | 'openai' | 'local';

export interface ProviderRequest {
  text: string;
  voice: VoiceDef;
  /** 1 = the voice's normal speed. */
  speed: number;
  /** Aborts the request: an HTTP provider closes its connection at once. */
  signal: AbortSignal;
}

export interface SpeechSink {
  /** A chunk of mono 16-bit PCM, in order, as soon as it arrived. */
  audio(pcm: Int16Array, sampleRateHz: number): void;
}

export interface CharacterTiming {
  char: string;
  startSec: number;
  endSec: number;
}

/** What a provider knows about when things were said (sample positions on the 48 kHz clock). */
export interface ProviderTimings {
  phonemes?: Array<{ ipa: string; startSample: number }>;
  words?: Array<{ text: string; startSample: number; endSample: number }>;
  /** Per character of the request's text (ElevenLabs' alignment). */
  characters?: CharacterTiming[];
}

export interface SpeechProvider {
  readonly name: ProviderName;
  /** How many of its requests may run at once in one engine process. */
  readonly concurrency: number;
  /** Streams the speech of `req.text` into `sink`; resolves with its timings when it is complete. */
  synthesize(req: ProviderRequest, sink: SpeechSink): Promise<ProviderTimings>;
  close?(): Promise<void>;
}

/** Why a provider request failed: the `reason` of the data channel's `turnFailed`. */
export type ProviderFailure =
  | 'connection_failed'
  | 'timeout'
  | 'unauthorized'
  | 'rate_limited'
  | 'provider_error'
  | 'bad_request'
  | 'bad_audio'
  | 'no_audio';

/** A provider request that failed. Its message never holds an API key or the spoken text. */
export class ProviderError extends CodedError {
  static override code = 'ERR_PROVIDER';
  readonly reason: ProviderFailure;
  readonly provider: ProviderName;
  constructor(provider: ProviderName, reason: ProviderFailure, message: string) {
    super(message);
    this.name = 'ProviderError';
    this.provider = provider;
    this.reason = reason;
  }
}

/** One provider request as the metrics see it. */
export interface ProviderRequestStat {
  provider: ProviderName;
  /** undefined when it succeeded. */
  failure?: ProviderFailure;
  /** From sending the request to its first audio byte (absent when none came). */
  firstByteMs?: number;
}
