/**
 * Seamless joins on real speech: a turn's sentence pieces from every built-in kind of voice
 * (espeak, Flite, an OpenAI-compatible and an ElevenLabs stand-in over HTTP), and a stream that
 * runs dry mid-sentence, played by the real player. At each join the sound's jump is measured as
 * the second difference |y[n] − 2y[n−1] + y[n−2]| (a step shows there as a spike; smooth sound
 * does not) against its median in the 5 ms around (outside the join's ramp): a click is many times
 * the local figure, a seamless join no more than about it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAudioDecoder } from '../audio/decoder.js';
import { CHUNK_SAMPLES, msToSamples } from '../clock/media-clock.js';
import { REST_MOUTH, Viseme } from '../face-state.js';
import { createEngineSpeech, type EngineSpeech } from '../speech/engine-speech.js';
import { fliteAvailable } from '../speech/voice-book.js';
import { espeakSpeech } from '../testing/espeak-speech.js';
import { elevenLabsStandin, openAiStandin, type VoiceStandin } from '../testing/voice-standins.js';
import { JOIN_RAMP_MS } from './join-smoother.js';
import { SpeechPlayer } from './speech-player.js';
import { TextTurnSynth } from './text-turn.js';
import { TurnAudio } from './turn-audio.js';

const TEXT =
  'Good morning, and thank you for calling. I can help you track your order. What would you like to do?';
/** A join is seamless when its jump is under this many times the local figure. */
const MAX_RATIO = 3;

let openai: VoiceStandin;
let eleven: VoiceStandin;
let speech: EngineSpeech;

beforeAll(async () => {
  openai = await openAiStandin();
  eleven = await elevenLabsStandin();
  const entry = (id: string, provider: 'openai' | 'elevenlabs', providerVoice: string) => ({
    id,
    provider,
    providerVoice,
    name: id,
    language: 'en',
    gender: 'female' as const,
  });
  speech = createEngineSpeech({
    config: {
      voices: [entry('oa', 'openai', 'alloy'), entry('el', 'elevenlabs', 'AbCdEfGhIjKlMnOpQrSt')],
      openai: { url: openai.url, apiKey: openai.settings.apiKey },
      elevenlabs: { url: eleven.url, apiKey: eleven.settings.apiKey },
      firstByteTimeoutMs: 5000,
      stallTimeoutMs: 5000,
    },
    decoder: createAudioDecoder(),
  });
});
afterAll(async () => {
  await speech.close();
  await openai.close();
  await eleven.close();
});

/** The jump at sample `j` over the local figure (see the file comment). */
function jumpRatio(y: Int16Array, j: number): number {
  const d2 = (n: number): number => Math.abs(y[n]! - 2 * y[n - 1]! + y[n - 2]!);
  const local: number[] = [];
  for (let n = Math.max(2, j - 240); n < j - 8; n++) local.push(d2(n));
  for (let n = j + 160; n < Math.min(y.length, j + 400); n++) local.push(d2(n));
  local.sort((a, b) => a - b);
  const median = local[local.length >> 1] ?? 0;
  return Math.max(d2(j), d2(j + 1), d2(j + 2)) / Math.max(median, 4);
}

/** Plays a turn whose pieces are all made (no waits): the output, and where its pieces meet. */
function playWhole(audio: TurnAudio): { out: Int16Array; joins: number[]; pieces: Int16Array } {
  const joins: number[] = [];
  const parts: Int16Array[] = [];
  let at = 0;
  for (let i = 0; i < audio.slots; i++) {
    const read = audio.read(i);
    if (read.kind !== 'piece') throw new Error(`piece ${i} is ${read.kind}`);
    if (i > 0) joins.push(at);
    parts.push(read.piece.pcm);
    at += read.piece.pcm.length;
  }
  const pieces = new Int16Array(at);
  parts.reduce((o, p) => (pieces.set(p, o), o + p.length), 0);
  const player = new SpeechPlayer();
  player.start(audio);
  const out = new Int16Array(Math.ceil(at / CHUNK_SAMPLES) * CHUNK_SAMPLES);
  for (let o = 0; o < out.length; o += CHUNK_SAMPLES) player.pull(out.subarray(o, o + CHUNK_SAMPLES));
  return { out, joins, pieces };
}

async function madeTurn(voiceId: string): Promise<TurnAudio> {
  const lane = speech.synthesis.lane(`joins-${voiceId}`);
  const synth = new TextTurnSynth(`t-${voiceId}`, lane, voiceId, 1);
  synth.addText(TEXT);
  synth.finish();
  const done = (): boolean => {
    for (let i = 0; i < synth.audio.slots; i++) {
      const r = synth.audio.read(i);
      if (r.kind !== 'piece' || r.piece.streaming) return false;
    }
    return true;
  };
  for (let i = 0; i < 600 && !done(); i++) await new Promise((r) => setTimeout(r, 20));
  lane.close();
  expect(synth.audio.slots).toBe(4); // "Good morning," and three sentences
  return synth.audio;
}

describe('joins between speech pieces', () => {
  it('Flite is installed (its voices are built in)', () => expect(fliteAvailable()).toBe(true));

  it.each([['en-us-female'], ['en-us-natural-female'], ['oa'], ['el']])(
    '%s: every join of a turn is seamless',
    async (voiceId) => {
      const { out, joins, pieces } = playWhole(await madeTurn(voiceId));
      // nothing moved: away from the joins (and the turn's two ends) every sample is the piece's own
      const ramp = msToSamples(JOIN_RAMP_MS);
      const near = (n: number): boolean =>
        n < ramp || n >= pieces.length - ramp || joins.some((j) => n >= j - ramp && n < j + ramp);
      let changed = 0;
      for (let n = 0; n < pieces.length; n++) if (!near(n) && out[n] !== pieces[n]) changed++;
      expect(changed).toBe(0);
      const ratios = joins.map((j) => Math.round(jumpRatio(out, j) * 10) / 10);
      expect(
        ratios.filter((r) => r >= MAX_RATIO),
        `ratios at joins: ${ratios.join(', ')}`,
      ).toEqual([]);
    },
    60_000,
  );

  it('a stream that runs dry mid-sentence fades to silence and back without a click', async () => {
    const seg = await espeakSpeech().synthesize({
      text: 'Thank you for calling us today.',
      voiceId: 'en-us-male',
      speed: 1,
    });
    // the first part ends mid-sound, on a sample far from zero
    let cut = Math.floor(seg.pcm.length / 2);
    while (Math.abs(seg.pcm[cut - 1]!) < 2000) cut++;
    const audio = new TurnAudio('dry');
    const w = audio.reserve();
    audio.end();
    const mouth = { durationSamples: 0, at: () => REST_MOUTH, visemeAt: () => Viseme.X, emphasisAt: () => 0 };
    w.stream(seg.pcm.subarray(0, cut), mouth);
    const player = new SpeechPlayer();
    player.start(audio);
    const chunks = Math.ceil(cut / CHUNK_SAMPLES);
    const out = new Int16Array((chunks + 1) * CHUNK_SAMPLES);
    for (let c = 0; c < chunks; c++) player.pull(out.subarray(c * CHUNK_SAMPLES, (c + 1) * CHUNK_SAMPLES));
    w.stream(seg.pcm.subarray(cut), mouth); // the rest arrives after the player ran dry
    player.pull(out.subarray(chunks * CHUNK_SAMPLES));
    expect(out.subarray(cut + 200, chunks * CHUNK_SAMPLES).every((s) => s === 0)).toBe(true); // it waited
    const resumed = chunks * CHUNK_SAMPLES;
    const ratios = [cut, resumed].map((j) => jumpRatio(out, j));
    expect(
      ratios.filter((r) => r >= MAX_RATIO),
      `ratios: ${ratios.join(', ')}`,
    ).toEqual([]);
  });
});
