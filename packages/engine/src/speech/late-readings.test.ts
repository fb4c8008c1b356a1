/**
 * A provider's speech gets its mouth timings from espeak's reading, worked out after the audio
 * (router.ts `later`). That reading takes its turn on espeak's one thread through the fair
 * scheduler, like any session's sentence, and an interrupted turn's signal withdraws it and its
 * alignment.
 */
import { describe, expect, it } from 'vitest';
import { SAMPLE_RATE_HZ } from '../clock/media-clock.js';
import type { SpeechProvider } from './provider.js';
import { SpeechRouter } from './router.js';
import { SynthesisScheduler } from './synthesis-scheduler.js';
import type { EspeakSynth } from './tts.js';
import type { SpeechSegment } from './types.js';
import { VoiceBook } from './voice-book.js';

const segment = (samples: number): SpeechSegment => ({
  pcm: new Int16Array(samples),
  sampleRateHz: SAMPLE_RATE_HZ,
  phonemes: [{ ipa: 'h', startSample: 0 }],
  words: [],
});

/** espeak whose every synthesis waits until the test lets it finish, recording what it was asked. */
function heldEspeak() {
  const asked: string[] = [];
  const waiting: Array<() => void> = [];
  const espeak: EspeakSynth = {
    synthesize: (text) => {
      asked.push(text);
      return new Promise((resolve) => waiting.push(() => resolve(segment(4800))));
    },
    close: () => Promise.resolve(),
  };
  const finishAll = async (): Promise<void> => {
    for (let i = 0; i < 20; i++) {
      for (const done of waiting.splice(0)) done();
      await new Promise((r) => setTimeout(r, 1));
    }
  };
  return { espeak, asked, finishAll };
}

const openai: SpeechProvider = {
  name: 'openai',
  concurrency: 8,
  synthesize: (_req, sink) => {
    sink.audio(new Int16Array(2400), 24_000);
    return Promise.resolve({});
  },
};

function setup() {
  const held = heldEspeak();
  const aligned: string[] = [];
  const router = new SpeechRouter({
    voices: new VoiceBook({
      voices: [
        {
          id: 'oa',
          provider: 'openai',
          providerVoice: 'alloy',
          name: 'OA',
          language: 'en-US',
          gender: 'female',
        },
      ],
      openai: { url: 'http://127.0.0.1:9', apiKey: 'k' },
      firstByteTimeoutMs: 5000,
      stallTimeoutMs: 5000,
    }),
    espeak: held.espeak,
    providers: { openai },
    align: () => {
      aligned.push('align');
      return Promise.resolve({ phonemes: [{ ipa: 'h', startSample: 0 }], meanCost: 0.1 });
    },
  });
  const synthesis = new SynthesisScheduler(router);
  router.readVia(synthesis.lane('late readings'));
  return { ...held, aligned, synthesis };
}

describe("a provider's late reading", () => {
  it("waits its turn on espeak behind another session's sentence, and an interrupt withdraws it", async () => {
    const { asked, finishAll, aligned, synthesis } = setup();
    const espeakSession = synthesis.lane('b');
    const providerSession = synthesis.lane('a');
    // session b's sentence holds espeak's one thread
    const b = espeakSession.synthesize({ text: 'Espeak speaks.', voiceId: 'en-us-female', speed: 1 });
    await new Promise((r) => setTimeout(r, 1));
    const turn = new AbortController();
    const seg = await providerSession.synthesize({
      text: 'The provider speaks.',
      voiceId: 'oa',
      speed: 1,
      signal: turn.signal,
    });
    await new Promise((r) => setTimeout(r, 1));
    expect(asked).toEqual(['Espeak speaks.']); // the reading waits in its lane
    turn.abort(); // the turn is interrupted before its reading's turn came
    await finishAll();
    await b;
    expect(await seg.later).toEqual({ phonemes: [], words: [], timing: 'none' });
    expect(asked).toEqual(['Espeak speaks.']);
    expect(aligned).toEqual([]);
  });

  it('is read and aligned once espeak has finished the sentence ahead of it', async () => {
    const { asked, finishAll, aligned, synthesis } = setup();
    const b = synthesis.lane('b').synthesize({ text: 'Espeak speaks.', voiceId: 'en-us-female', speed: 1 });
    await new Promise((r) => setTimeout(r, 1));
    const seg = await synthesis
      .lane('a')
      .synthesize({ text: 'The provider speaks.', voiceId: 'oa', speed: 1 });
    await new Promise((r) => setTimeout(r, 1));
    expect(asked).toEqual(['Espeak speaks.']); // espeak's one thread is busy: the reading waits
    await finishAll();
    await b;
    expect((await seg.later)?.timing).toBe('aligned');
    expect(asked).toEqual(['Espeak speaks.', 'The provider speaks.']);
    expect(aligned).toEqual(['align']);
  });
});
