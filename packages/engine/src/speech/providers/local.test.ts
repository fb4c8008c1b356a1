/**
 * Local neural voices end to end in the engine, with the real sherpa-onnx in a child process and
 * the tiny test model (testing/tiny-voice.ts: each token sounds as its own sine, so the audio says
 * which phonemes were spoken): listed, spoken sentence by sentence at 48 kHz with speed as the
 * length scale, played by the real player while the next sentence is made, interrupted, and a
 * model that aborts its process mid-turn fails that turn only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAudioDecoder } from '../../audio/decoder.js';
import { CHUNK_SAMPLES, SAMPLE_RATE_HZ } from '../../clock/media-clock.js';
import { SpeechPlayer, type PlayerEvent } from '../../session/speech-player.js';
import { TextTurnSynth } from '../../session/text-turn.js';
import { tinyVoices, tokensOf, type TinyVoices } from '../../testing/tiny-voice.js';
import { createEngineSpeech, type EngineSpeech } from '../engine-speech.js';
import type { ProviderRequestStat } from '../provider.js';

let v: TinyVoices;
let speech: EngineSpeech;
const stats: ProviderRequestStat[] = [];
const localRequests = (): ProviderRequestStat[] => stats.filter((s) => s.provider === 'local');

beforeAll(() => {
  v = tinyVoices();
  const voice = { name: 'Tiny', language: 'en-US', gender: 'female' } as const;
  speech = createEngineSpeech({
    config: {
      voices: [
        { id: 'tiny', provider: 'local', model: v.good, ...voice },
        { id: 'tiny-z', provider: 'local', model: v.failsOnZ, ...voice },
      ],
      firstByteTimeoutMs: 5000,
      stallTimeoutMs: 5000,
    },
    decoder: createAudioDecoder(),
    onRequest: (s) => stats.push(s),
  });
});
afterAll(async () => {
  await speech.close();
});

/** The phonemes the tiny model spoke (its pads and sentence marks dropped). */
function spoken(pcm: Int16Array, speed = 1): string {
  return tokensOf(pcm, SAMPLE_RATE_HZ, speed)
    .map((id) => v.symbols[id] ?? '?')
    .filter((s) => !['_', '^', '$'].includes(s))
    .join('');
}

/** Plays a turn in 10 ms chunks until it is done (or `until` says stop); returns its events and audio. */
async function play(
  synth: TextTurnSynth,
  player = new SpeechPlayer(),
  until?: (events: PlayerEvent[]) => boolean,
): Promise<{ events: PlayerEvent[]; audio: Int16Array }> {
  player.start(synth.audio);
  const events: PlayerEvent[] = [];
  const chunks: Int16Array[] = [];
  for (let i = 0; i < 5000 && player.playing && !until?.(events); i++) {
    const out = new Int16Array(CHUNK_SAMPLES);
    events.push(...player.pull(out));
    chunks.push(out);
    await new Promise((r) => setTimeout(r, 1));
  }
  const audio = new Int16Array(chunks.length * CHUNK_SAMPLES);
  chunks.forEach((c, i) => audio.set(c, i * CHUNK_SAMPLES));
  return { events, audio };
}

describe('local neural voices (sherpa-onnx, tiny model)', () => {
  it('are listed with provider local; a sentence comes back at 48 kHz holding exactly its phonemes, speed scaling its length', async () => {
    expect(speech.voices.list()).toContainEqual(
      expect.objectContaining({ id: 'tiny', provider: 'local', language: 'en-US', model: v.good }),
    );
    const lane = speech.synthesis.lane('listed');
    const seg = await lane.synthesize({ text: 'Buzz zoo.', voiceId: 'tiny', speed: 1 });
    expect(seg.sampleRateHz).toBe(48_000);
    // espeak-ng (Debian's data, through sherpa-onnx's Piper front end) reads it as b ˈʌ z, z ˈu ː
    expect(spoken(seg.pcm)).toBe('bˈʌz zˈuː.');
    const fast = await lane.synthesize({ text: 'Buzz zoo.', voiceId: 'tiny', speed: 2 });
    expect(fast.pcm.length / seg.pcm.length).toBeCloseTo(0.5, 2);
    expect(spoken(fast.pcm, 2)).toBe('bˈʌz zˈuː.');
    // no phonemes from sherpa-onnx: espeak's reading is aligned to the audio afterwards
    expect(seg.timing).toBe('none');
    expect(seg.later).toBeDefined();
    lane.close();
  });

  it('a turn plays sentence by sentence: when the first has played out, the next is made and the last not yet asked for', async () => {
    const lane = speech.synthesis.lane('streamed');
    const before = localRequests().length;
    let requestsAtFirstPiece: number | undefined;
    lane.lookahead.onLow(() => (requestsAtFirstPiece ??= localRequests().length - before));
    const synth = new TextTurnSynth('t1', lane, 'tiny', 1, lane.lookahead);
    synth.addText('Hello there. This is a test of many words. Good night to all of you.');
    synth.finish();
    const played = await play(synth);
    lane.close();
    expect(played.events.map((e) => e.type)).toEqual(['speakingStart', 'speakingEnd', 'done']);
    expect(requestsAtFirstPiece).toBe(2);
    expect(localRequests().length - before).toBe(3);
    expect(
      localRequests()
        .slice(before)
        .every((s) => s.failure === undefined),
    ).toBe(true);
    expect(played.audio.filter((s) => s !== 0).length).toBeGreaterThan(48_000); // seconds of tones
  });

  it('an interrupted turn stops at once, asks for nothing more, and the next turn plays its own words', async () => {
    const lane = speech.synthesis.lane('interrupted');
    const before = localRequests().length;
    const player = new SpeechPlayer();
    const long = new TextTurnSynth('long', lane, 'tiny', 1, lane.lookahead);
    long.addText(
      'One sentence here. Another sentence here. A third sentence here. A fourth one. A fifth one.',
    );
    long.finish();
    const first = await play(long, player, (e) => e.some((x) => x.type === 'speakingStart'));
    expect(first.events.map((e) => e.type)).toEqual(['speakingStart']);
    long.cancel();
    player.stop();
    // the sentence in flight still ends (reported as it ends); nothing new is asked for
    const atCancel = localRequests().length - before;
    await new Promise((r) => setTimeout(r, 1000));
    const after = localRequests().length - before;
    expect(after - atCancel).toBeLessThanOrEqual(1);
    expect(after).toBeLessThan(5);
    const next = new TextTurnSynth('next', lane, 'tiny', 1, lane.lookahead);
    next.addText('Buzz zoo.');
    next.finish();
    const played = await play(next, player);
    lane.close();
    expect(played.events.map((e) => e.type)).toEqual(['speakingStart', 'speakingEnd', 'done']);
    const sounding = played.audio.findIndex((s) => s !== 0);
    expect(spoken(played.audio.subarray(sounding))).toContain('bˈʌz zˈuː.');
  });

  it('a model that aborts its process mid-turn fails that turn (provider_error) after its first sentence played; the next turn plays', async () => {
    const lane = speech.synthesis.lane('aborting');
    const bad = new TextTurnSynth('bad', lane, 'tiny-z', 1, lane.lookahead);
    bad.addText('Hello there, my friend. Buzz off now. Good night.');
    bad.finish();
    const failed = await play(bad);
    expect(failed.events.map((e) => e.type)).toEqual(['speakingStart', 'speakingEnd', 'failed', 'done']);
    expect(failed.events).toContainEqual(
      expect.objectContaining({ type: 'failed', reason: 'provider_error' }),
    );
    const failure = localRequests().find((s) => s.failure);
    expect(failure?.failure).toBe('provider_error');
    const good = new TextTurnSynth('good', lane, 'tiny-z', 1, lane.lookahead);
    good.addText('Hello there.');
    good.finish();
    const played = await play(good);
    lane.close();
    expect(played.events.map((e) => e.type)).toEqual(['speakingStart', 'speakingEnd', 'done']);
    const sounding = played.audio.findIndex((s) => s !== 0);
    expect(spoken(played.audio.subarray(sounding))).toContain('həlˈoʊ ðˈɛɹ.');
  });
});
