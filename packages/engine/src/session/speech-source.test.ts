/**
 * An audio turn's transcript is aligned late (espeak's reading, then DTW): that work belongs to the
 * turn, and a turn that closes first (interrupted, the session ended) withdraws it.
 */
import { expect, it } from 'vitest';
import type { AudioDecoder } from '../audio/decoder.js';
import { SAMPLE_RATE_HZ } from '../clock/media-clock.js';
import { REST_MOUTH, Viseme } from '../face-state.js';
import type { MouthTrack } from '../lipsync/mouth-track.js';
import { singlePool, SynthesisScheduler } from '../speech/synthesis-scheduler.js';
import type { SynthesisRequest } from '../speech/types.js';
import { createSpeechSource } from './speech-source.js';
import { TurnAudio } from './turn-audio.js';

it("an interrupted audio turn withdraws its transcript's reading and alignment", async () => {
  const asked: SynthesisRequest[] = [];
  const aligned: Array<AbortSignal | undefined> = [];
  const synthesis = new SynthesisScheduler(
    singlePool({
      synthesize: (req) => {
        asked.push(req);
        return Promise.resolve({
          pcm: new Int16Array(4800),
          sampleRateHz: SAMPLE_RATE_HZ,
          phonemes: [{ ipa: 'h', startSample: 0 }],
          words: [],
        });
      },
      close: () => Promise.resolve(),
    }),
  );
  const decoder: AudioDecoder = {
    decode: () => Promise.reject(new Error('not used')),
    align: (_pcm, _reference, signal) => {
      aligned.push(signal);
      return new Promise(() => undefined); // DTW still running when the turn closes
    },
    close: () => Promise.resolve(),
  };
  const source = createSpeechSource({
    sessionId: 's',
    synthesis,
    decoder,
    voiceId: 'en-us-female',
    speed: 1,
  });
  const audio = new TurnAudio('t1');
  const rest: MouthTrack = {
    durationSamples: 48_000,
    at: () => REST_MOUTH,
    visemeAt: () => Viseme.X,
    emphasisAt: () => 0,
  };
  audio.append(new Int16Array(48_000), rest);
  audio.end();

  void source.addTranscript(audio, 'Hello there.');
  for (let i = 0; i < 20 && aligned.length === 0; i++) await new Promise((r) => setTimeout(r, 1));
  expect(asked).toHaveLength(1);
  expect(aligned).toHaveLength(1);
  expect(asked[0]!.signal?.aborted).toBe(false);

  audio.close(); // interrupted
  expect(asked[0]!.signal?.aborted).toBe(true);
  expect(aligned[0]?.aborted).toBe(true);
  source.close();
});
