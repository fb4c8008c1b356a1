/**
 * A local neural voice spoken through a real engine session (null media, a viewer without video):
 * say-text plays the model's audio at the viewer's audio sink (the tiny test model's tones read
 * back as the sentence's phonemes), interrupt ends it at once, and a model that aborts its process
 * mid-turn gives turnFailed while the next turn plays. Real sherpa-onnx in a child process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAudioDecoder } from '../audio/decoder.js';
import { SAMPLE_RATE_HZ } from '../clock/media-clock.js';
import type { EngineEvent } from '../contract/types.js';
import { createEngineSpeech, type EngineSpeech } from '../speech/engine-speech.js';
import { browserOffer } from '../testing/offers.js';
import { nullMedia } from '../testing/null-media.js';
import { tinyVoices, tokensOf, type TinyVoices } from '../testing/tiny-voice.js';
import { EngineSession } from './engine-session.js';
import { createSpeechSource } from './speech-source.js';

let v: TinyVoices;
let speech: EngineSpeech;

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
  });
});
afterAll(async () => {
  await speech.close();
});

interface Running {
  session: EngineSession;
  events: EngineEvent[];
  audio: Int16Array[];
  /** Ticks the session (10 ms each, as fast as it goes) until `done` says so. */
  until(done: (events: EngineEvent[]) => boolean): Promise<void>;
}

async function startSession(sessionId: string, voiceId: string): Promise<Running> {
  const media = nullMedia();
  const events: EngineEvent[] = [];
  const audio: Int16Array[] = [];
  const session = new EngineSession({
    sessionId,
    fps: 25,
    readyTimeoutMs: 0,
    noChannelStartMs: 0,
    emit: (e) => events.push(e),
    speech: createSpeechSource({
      sessionId,
      synthesis: speech.synthesis,
      decoder: createAudioDecoder(),
      voiceId,
      speed: 1,
    }),
    audioSink: { write: (chunk) => audio.push(chunk.slice()) },
    peerFactory: media.peerFactory,
    waitForViewer: false,
  });
  await session.connectViewer('v1', browserOffer([]), []);
  let tick = 0;
  return {
    session,
    events,
    audio,
    async until(done) {
      for (let i = 0; i < 6000 && !done(events); i++) {
        session.tick(tick++);
        await new Promise((r) => setTimeout(r, 1));
      }
    },
  };
}

/** A turn's events, its words left out. */
const types = (events: EngineEvent[], turnId: string): string[] =>
  events.filter((e) => 'turnId' in e && e.turnId === turnId && e.type !== 'word').map((e) => e.type);

/** The phonemes the tiny model spoke in this audio (pads, sentence marks and silence dropped). */
function spoken(chunks: Int16Array[]): string {
  const pcm = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) pcm.set(c, (at += c.length) - c.length);
  const start = pcm.findIndex((s) => s !== 0);
  return tokensOf(pcm.subarray(Math.max(0, start)), SAMPLE_RATE_HZ)
    .map((id) => v.symbols[id] ?? '?')
    .filter((s) => !['_', '^', '$'].includes(s))
    .join('');
}

describe('a local voice in an engine session', () => {
  it('say-text plays the model’s speech to the viewer, sentence after sentence', async () => {
    const s = await startSession('local-1', 'tiny');
    expect(s.session.sayText({ turnId: 't1', text: 'Buzz zoo. Hello there.', isFinal: true })).toBe('queued');
    await s.until((e) => types(e, 't1').includes('speakingEnd'));
    expect(types(s.events, 't1')).toEqual(['speakingStart', 'speakingEnd']);
    const said = spoken(s.audio);
    expect(said).toContain('bˈʌz zˈuː.');
    expect(said).toContain('həlˈoʊ ðˈɛɹ.');
    expect(said.indexOf('bˈʌz')).toBeLessThan(said.indexOf('həlˈoʊ'));
    s.session.close('test');
  });

  it('interrupt ends the turn at once; the next turn plays', async () => {
    const s = await startSession('local-2', 'tiny');
    s.session.sayText({
      turnId: 'long',
      text: 'One sentence here. Another one here. And a third one here.',
      isFinal: true,
    });
    await s.until((e) => types(e, 'long').includes('speakingStart'));
    expect(s.session.interrupt()).toEqual(['long']);
    expect(s.events.at(-1)).toMatchObject({ type: 'speakingEnd', turnId: 'long', interrupted: true });
    s.audio.length = 0;
    s.session.sayText({ turnId: 'next', text: 'Buzz zoo.', isFinal: true });
    await s.until((e) => types(e, 'next').includes('speakingEnd'));
    expect(types(s.events, 'next')).toEqual(['speakingStart', 'speakingEnd']);
    expect(spoken(s.audio)).toBe('bˈʌz zˈuː.'); // nothing of the interrupted turn
    s.session.close('test');
  });

  it('a model that aborts its process mid-turn: turnFailed (provider_error); the next turn plays', async () => {
    const s = await startSession('local-3', 'tiny-z');
    s.session.sayText({ turnId: 'bad', text: 'Hello there, my friend. Buzz off now.', isFinal: true });
    await s.until((e) => types(e, 'bad').includes('turnFailed'));
    expect(types(s.events, 'bad')).toEqual(['speakingStart', 'speakingEnd', 'turnFailed']);
    expect(s.events.find((e) => e.type === 'turnFailed')).toMatchObject({ reason: 'provider_error' });
    s.audio.length = 0;
    s.session.sayText({ turnId: 'good', text: 'Hello there.', isFinal: true });
    await s.until((e) => types(e, 'good').includes('speakingEnd'));
    expect(types(s.events, 'good')).toEqual(['speakingStart', 'speakingEnd']);
    expect(spoken(s.audio)).toBe('həlˈoʊ ðˈɛɹ.');
    s.session.close('test');
  });
});
