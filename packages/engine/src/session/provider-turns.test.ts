/**
 * Text turns spoken by streaming voice providers (real HTTP stand-ins), played by the real player:
 * audio plays while the provider still streams, a failed turn ends with speakingEnd (when it had
 * started) and `failed` with its reason, and the next turn plays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAudioDecoder } from '../audio/decoder.js';
import { CHUNK_SAMPLES } from '../clock/media-clock.js';
import { LiveAudioMouth } from '../lipsync/live-audio-mouth.js';
import { createEngineSpeech, type EngineSpeech } from '../speech/engine-speech.js';
import { openAiStandin, type VoiceStandin } from '../testing/voice-standins.js';
import { SpeechPlayer, type PlayerEvent } from './speech-player.js';
import { TextTurnSynth } from './text-turn.js';

let openai: VoiceStandin;
let speech: EngineSpeech;

beforeAll(async () => {
  openai = await openAiStandin();
  speech = createEngineSpeech({
    config: {
      voices: [
        {
          id: 'oa',
          provider: 'openai',
          providerVoice: 'alloy',
          name: 'OA',
          language: 'en',
          gender: 'female',
        },
      ],
      openai: { url: openai.url, apiKey: openai.settings.apiKey },
      firstByteTimeoutMs: 2000,
      stallTimeoutMs: 2000,
    },
    decoder: createAudioDecoder(),
  });
});
afterAll(async () => {
  await speech.close();
  await openai.close();
});

/**
 * Plays a turn in 10 ms chunks (pausing a little between them) until it is done, like the engine
 * session: the lane's lookahead counts pieces ready but not played, and playback drains it.
 */
async function play(synth: TextTurnSynth, player = new SpeechPlayer()): Promise<Played> {
  player.start(synth.audio);
  const out = new Int16Array(CHUNK_SAMPLES);
  const played: Played = { events: [], sounding: 0, whileStreaming: 0, openWhileStreaming: 0 };
  // a piece still streaming in, as the stream has it now
  const streaming = (): boolean => {
    for (let k = 0; k < synth.audio.slots; k++) {
      const read = synth.audio.read(k);
      if (read.kind === 'piece' && read.piece.streaming) return true;
    }
    return false;
  };
  for (let i = 0; i < 3000 && player.playing; i++) {
    const open = streaming();
    played.events.push(...player.pull(out));
    if (out.some((s) => s !== 0)) {
      played.sounding++;
      if (open) played.whileStreaming++;
      if (open)
        played.openWhileStreaming = Math.max(played.openWhileStreaming, player.mouthAt(0)?.mouth.open ?? 0);
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  return played;
}

interface Played {
  events: PlayerEvent[];
  sounding: number;
  whileStreaming: number;
  openWhileStreaming: number;
}

describe('provider turns', () => {
  it('a streamed turn sounds while its audio still arrives, its mouth from the live audio model; the next sentence is requested while the current one plays, never the whole turn first', async () => {
    openai.settings.fault = 'none';
    openai.settings.paceMs = 60; // slower than playback: playback catches up with the stream
    const before = openai.requests.length;
    const player = new SpeechPlayer();
    // the engine session's lookahead: pieces synthesized and not yet played
    const lane = speech.synthesis.lane('s1');
    let requestsAtFirstPiece: number | undefined;
    lane.lookahead.onLow(() => (requestsAtFirstPiece ??= openai.requests.length)); // the first piece played out
    const synth = new TextTurnSynth('t1', lane, 'oa', 1, lane.lookahead);
    synth.addText('Good morning and welcome to the show. We have a lot to talk about today. Let us begin.');
    synth.finish();
    const played = await play(synth, player);
    openai.settings.paceMs = 10;
    lane.close();
    expect(played.events.map((e) => e.type)).toEqual(['speakingStart', 'speakingEnd', 'done']);
    expect(played.sounding).toBeGreaterThan(100);
    expect(played.whileStreaming).toBeGreaterThan(10);
    expect(played.openWhileStreaming).toBeGreaterThan(0.3); // the audio-only model opens the mouth
    // when the first sentence had played out, the second had been requested and the third not yet
    expect(requestsAtFirstPiece! - before).toBe(2);
    expect(openai.requests.length - before).toBe(3);
    // espeak's reading aligned to each sentence replaced the audio-only mouth (after its audio)
    await new Promise((r) => setTimeout(r, 500));
    const mouths = [0, 1, 2].map((i) => synth.audio.read(i));
    expect(
      mouths.filter((r) => r.kind === 'piece' && !(r.piece.mouth instanceof LiveAudioMouth)),
    ).toHaveLength(3);
  });

  it('a failed turn gives failed with its reason; the next turn still plays', async () => {
    const lane = speech.synthesis.lane('s2');
    openai.settings.fault = 429;
    const bad = new TextTurnSynth('bad', lane, 'oa', 1);
    bad.addText('This one will fail.');
    bad.finish();
    const failed = await play(bad);
    expect(failed.events).toContainEqual(
      expect.objectContaining({ type: 'failed', turnId: 'bad', reason: 'rate_limited' }),
    );
    expect(failed.events.some((e) => e.type === 'speakingStart')).toBe(false);

    openai.settings.fault = 'stall'; // starts speaking, then the stream stops
    const broken = new TextTurnSynth('broken', lane, 'oa', 1);
    broken.addText('This one starts and then breaks off.');
    broken.finish();
    const mid = await play(broken);
    expect(mid.events.map((e) => e.type)).toEqual(['speakingStart', 'speakingEnd', 'failed', 'done']);

    openai.settings.fault = 'none';
    const good = new TextTurnSynth('good', lane, 'oa', 1);
    good.addText('And this one plays.');
    good.finish();
    const ok = await play(good);
    lane.close();
    expect(ok.events.map((e) => e.type)).toEqual(['speakingStart', 'speakingEnd', 'done']);
    expect(ok.sounding).toBeGreaterThan(20);
  });
});
