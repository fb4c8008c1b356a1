/**
 * Provider voices in other languages keep lip-sync: the reading that gives their speech its mouth
 * shapes is espeak's in the voice's language (OpenAI-compatible: aligned to the audio; ElevenLabs:
 * placed on its character timings), and a language espeak does not speak falls back to the
 * audio-only model, which still opens the mouth with the sound. Real HTTP stand-ins speaking
 * Finnish (the espeak-ng program; Finnish was not among the 13 languages listed before), real espeak readings, the real player.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAudioDecoder } from '../audio/decoder.js';
import { CHUNK_SAMPLES } from '../clock/media-clock.js';
import { createEngineSpeech, type EngineSpeech } from '../speech/engine-speech.js';
import { createEspeak } from '../speech/tts.js';
import { elevenLabsStandin, openAiStandin, type VoiceStandin } from '../testing/voice-standins.js';
import { SpeechPlayer } from './speech-player.js';
import { TextTurnSynth } from './text-turn.js';

let openai: VoiceStandin;
let eleven: VoiceStandin;
let speech: EngineSpeech;
/** The espeak voices asked for, in order (readings and espeak's own speech alike). */
const espeakVoices: string[] = [];

const voice = (id: string, provider: 'openai' | 'elevenlabs', language: string) => ({
  id,
  provider,
  providerVoice: provider === 'openai' ? 'alloy' : 'AbCdEfGhIjKlMnOpQrSt',
  name: id,
  language,
  gender: 'female' as const,
});

beforeAll(async () => {
  openai = await openAiStandin();
  eleven = await elevenLabsStandin();
  openai.settings.speaks = eleven.settings.speaks = 'fi';
  const espeak = createEspeak();
  speech = createEngineSpeech({
    config: {
      voices: [
        voice('oa-fi', 'openai', 'fi-FI'),
        voice('el-fi', 'elevenlabs', 'fi'),
        voice('oa-xh', 'openai', 'xh'),
      ],
      openai: { url: openai.url, apiKey: openai.settings.apiKey },
      elevenlabs: { url: eleven.url, apiKey: eleven.settings.apiKey },
      firstByteTimeoutMs: 5000,
      stallTimeoutMs: 5000,
    },
    decoder: createAudioDecoder(),
    espeak: {
      synthesize: (text, espeakVoice, speed) => {
        espeakVoices.push(espeakVoice);
        return espeak.synthesize(text, espeakVoice, speed);
      },
      close: () => espeak.close(),
    },
  });
});
afterAll(async () => {
  await speech.close();
  await openai.close();
  await eleven.close();
});

const SENTENCE = 'Hyvää huomenta, me rakennamme tänään pienen talon meren rannalle.';

describe('provider voices in other languages', () => {
  it.each([
    ['oa-fi', 'aligned'],
    ['el-fi', 'placed'],
  ])("%s: the mouth follows espeak's Finnish reading (%s)", async (voiceId, timing) => {
    const lane = speech.synthesis.lane(`s-${voiceId}`);
    espeakVoices.length = 0;
    const seg = await lane.synthesize({ text: SENTENCE, voiceId, speed: 1, urgent: true });
    const t = await seg.later;
    lane.close();
    expect(espeakVoices).toEqual(['urj/fi']);
    expect(t?.timing).toBe(timing);
    // Finnish sounds: the lips close for the m of "me", "rakennamme", "meren"
    expect(t!.phonemes.filter((p) => /^m/.test(p.ipa)).length).toBeGreaterThanOrEqual(3);
  });

  it('a language espeak does not speak: no reading, and the audio model moves the mouth with the sound', async () => {
    const lane = speech.synthesis.lane('s-xh');
    espeakVoices.length = 0;
    const synth = new TextTurnSynth('t-xh', lane, 'oa-xh', 1, lane.lookahead);
    synth.addText(SENTENCE);
    synth.finish();
    const player = new SpeechPlayer();
    player.start(synth.audio);
    const out = new Int16Array(CHUNK_SAMPLES);
    let sounding = 0;
    let open = 0;
    for (let i = 0; i < 3000 && player.playing; i++) {
      player.pull(out);
      if (out.some((s) => Math.abs(s) > 1000)) {
        sounding++;
        if ((player.mouthAt(0)?.mouth.open ?? 0) > 0.2) open++;
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    lane.close();
    expect(espeakVoices).toEqual([]);
    expect(sounding).toBeGreaterThan(100);
    expect(open / sounding).toBeGreaterThan(0.3); // never a still mouth
  });
});
