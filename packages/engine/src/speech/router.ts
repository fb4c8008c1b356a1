/**
 * The engine's one synthesizer: routes each request to its voice's provider (espeak, ElevenLabs,
 * OpenAI-compatible) and turns what the provider streams into 48 kHz speech as it arrives
 * (`onAudio`), then gives the segment phoneme timings whatever the provider knew: its own
 * phonemes (espeak), espeak's reading placed on its character timings (ElevenLabs), or espeak's
 * reading aligned to its audio (OpenAI; `none` when the reading does not fit, and the audio-only
 * model keeps the mouth). Placing and aligning happen after the request has ended (`later`), so
 * they never hold back the next sentence. Sessions reach it through the fair scheduler (synthesis-scheduler.ts),
 * and so do those late readings (`readVia`: a lane of their own, taking turns with the sessions'
 * sentences on espeak's one thread); the request's `signal` reaches them and the alignment, so an
 * interrupted turn's timings are never worked out.
 */
import { performance } from 'node:perf_hooks';
import { MISMATCH_COST, type Alignment, type PhonemeEvent } from '../lipsync/align-transcript.js';
import { placeOnCharacters } from '../lipsync/character-placement.js';
import { SAMPLE_RATE_HZ } from '../clock/media-clock.js';
import { AbortedError, type PooledTts, type SynthesisPool, type Synthesizer } from './synthesis-scheduler.js';
import {
  ProviderError,
  type ProviderName,
  type ProviderRequestStat,
  type ProviderTimings,
  type SpeechProvider,
} from './provider.js';
import { StreamResampler } from './stream-resampler.js';
import type { EspeakSynth } from './tts.js';
import type { SpeechSegment, SynthesisRequest } from './types.js';
import type { VoiceBook } from './voice-book.js';
import type { VoiceDef } from './voices.js';
import { CodedError } from '@mouthpiece/protocol';

export interface SpeechRouterOptions {
  voices: VoiceBook;
  espeak: EspeakSynth;
  providers: Partial<Record<ProviderName, SpeechProvider>>;
  /** Aligns a reference reading to received speech (the decoder worker's DTW). */
  align(
    pcm48k: Int16Array,
    reference: Array<{ pcm: Int16Array; phonemes: PhonemeEvent[] }>,
    signal?: AbortSignal,
  ): Promise<Alignment>;
  /** Every provider request, for the metrics. */
  onRequest?(stat: ProviderRequestStat): void;
}

export class SpeechRouter implements PooledTts {
  readonly #o: SpeechRouterOptions;
  /** Where late readings are synthesized (the fair scheduler's lane); unset: espeak directly. */
  #readings: Synthesizer | undefined;

  constructor(o: SpeechRouterOptions) {
    this.#o = o;
  }

  /** Late readings (a provider's speech's timings) go through `readings`: the scheduler's lane. */
  readVia(readings: Synthesizer): void {
    this.#readings = readings;
  }

  poolOf(req: SynthesisRequest): SynthesisPool {
    const voice = this.#o.voices.find(req.voiceId);
    const name = req.reading || !voice ? 'espeak' : voice.provider;
    return { key: name, concurrency: this.#o.providers[name]?.concurrency ?? 1 };
  }

  async synthesize(req: SynthesisRequest): Promise<SpeechSegment> {
    const voice = this.#o.voices.find(req.voiceId);
    if (!voice) throw new Error(`unknown voice "${req.voiceId}"`);
    if (req.signal?.aborted) throw new AbortedError();
    if (req.reading) return this.#o.espeak.synthesize(req.text, readingOf(voice), 1);
    if (voice.provider === 'espeak') {
      const t0 = performance.now();
      const seg = await this.#o.espeak.synthesize(req.text, readingOf(voice), req.speed);
      this.#o.onRequest?.({ provider: 'espeak', firstByteMs: performance.now() - t0 });
      return seg;
    }
    return this.#streamed(voice, req);
  }

  async close(): Promise<void> {
    await Promise.all(Object.values(this.#o.providers).map((p) => p.close?.() ?? Promise.resolve()));
    await this.#o.espeak.close();
  }

  async #streamed(voice: VoiceDef, req: SynthesisRequest): Promise<SpeechSegment> {
    const name = voice.provider;
    const provider = this.#o.providers[name];
    if (!provider) throw new ProviderError(name, 'bad_request', `${name} is not configured`);
    const resampler = new StreamResampler(SAMPLE_RATE_HZ);
    const chunks: Int16Array[] = [];
    const deliver = (pcm: Int16Array): void => {
      if (pcm.length === 0) return;
      chunks.push(pcm);
      if (!req.signal?.aborted) req.onAudio?.(pcm);
    };
    const t0 = performance.now();
    let firstByteMs: number | undefined;
    let timings: ProviderTimings;
    try {
      timings = await provider.synthesize(
        { text: req.text, voice, speed: req.speed, signal: req.signal ?? new AbortController().signal },
        {
          audio: (pcm, rate) => {
            firstByteMs ??= performance.now() - t0;
            deliver(resampler.push(pcm, rate));
          },
        },
      );
      deliver(resampler.end());
    } catch (err) {
      if (err instanceof AbortedError || req.signal?.aborted) {
        this.#o.onRequest?.({ provider: name, ...(firstByteMs !== undefined ? { firstByteMs } : {}) });
        throw new AbortedError();
      }
      const failure =
        err instanceof ProviderError
          ? err
          : new ProviderError(
              name,
              'bad_audio',
              `${name}: ${err instanceof Error ? err.message : String(err)}`,
            );
      this.#o.onRequest?.({
        provider: name,
        failure: failure.reason,
        ...(firstByteMs !== undefined ? { firstByteMs } : {}),
      });
      throw failure;
    }
    this.#o.onRequest?.({ provider: name, ...(firstByteMs !== undefined ? { firstByteMs } : {}) });
    const pcm = concat(chunks);
    if (timings.phonemes?.length)
      return {
        pcm,
        sampleRateHz: SAMPLE_RATE_HZ,
        phonemes: timings.phonemes,
        words: timings.words ?? [],
        timing: 'exact',
      };
    // the audio is complete: the request ends now; its timings follow (never rejects)
    return {
      pcm,
      sampleRateHz: SAMPLE_RATE_HZ,
      phonemes: [],
      words: [],
      timing: 'none',
      later: this.#timingsOf(voice, req, pcm, timings),
    };
  }

  /** Phonemes and words for a provider's speech (see the file comment). */
  async #timingsOf(
    voice: VoiceDef,
    req: SynthesisRequest,
    pcm: Int16Array,
    t: ProviderTimings,
  ): Promise<Pick<SpeechSegment, 'phonemes' | 'words' | 'timing'>> {
    const { text, signal } = req;
    // espeak does not speak the voice's language: the audio-only model drives the mouth
    if (voice.espeakVoice === undefined) return { phonemes: [], words: [], timing: 'none' };
    try {
      if (signal?.aborted) throw new AbortedError();
      const reading = this.#readings
        ? await this.#readings.synthesize({
            text,
            voiceId: req.voiceId,
            speed: 1,
            reading: true,
            urgent: true,
            ...(signal ? { signal } : {}),
          })
        : await this.#o.espeak.synthesize(text, voice.espeakVoice, 1);
      if (t.characters?.length) {
        const placed = placeOnCharacters(text, reading, t.characters, pcm.length);
        if (placed.phonemes.length) return { ...placed, timing: 'placed' };
      }
      if (signal?.aborted) throw new AbortedError();
      const aligned = await this.#o.align(pcm, [{ pcm: reading.pcm, phonemes: reading.phonemes }], signal);
      if (aligned.meanCost <= MISMATCH_COST)
        return { phonemes: aligned.phonemes, words: [], timing: 'aligned' };
    } catch {
      // timings improve the mouth only: the audio-only model keeps it
    }
    return { phonemes: [], words: [], timing: 'none' };
  }
}

/** The voice's espeak reading; a voice of a language espeak does not speak has none. */
function readingOf(voice: VoiceDef): string {
  if (voice.espeakVoice === undefined) throw new NoReadingError(voice.language);
  return voice.espeakVoice;
}

/** espeak does not speak this language (a provider voice's transcript gets no reading). */
export class NoReadingError extends CodedError {
  static override code = 'ERR_NO_READING';
  constructor(language: string) {
    super(`espeak-ng does not speak "${language}"`);
    this.name = 'NoReadingError';
  }
}

function concat(chunks: Int16Array[]): Int16Array {
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
