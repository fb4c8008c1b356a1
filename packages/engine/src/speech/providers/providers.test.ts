/**
 * The voice providers against real HTTP stand-ins of their APIs (testing/voice-standins.ts):
 * streamed audio arrives before the request completes, mouth timings come from character
 * alignment (ElevenLabs) or from aligning espeak's reading (OpenAI), every failure kind gives its
 * reason with a message free of the key and the text, and an abort closes the upstream request.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAudioDecoder } from '../../audio/decoder.js';
import { elevenLabsStandin, openAiStandin, type VoiceStandin } from '../../testing/voice-standins.js';
import { createEngineSpeech, type EngineSpeech } from '../engine-speech.js';
import type { ProviderRequestStat } from '../provider.js';
import { AbortedError } from '../synthesis-scheduler.js';
import type { SpeechSegment, SynthesisRequest } from '../types.js';
import type { SpeechConfig } from '../voice-book.js';

const TEXT = 'The quick brown fox jumps over the lazy dog near the river bank.';
const SECRET_TEXT = 'My secret passphrase is purple elephant.';

let openai: VoiceStandin;
let eleven: VoiceStandin;
let speech: EngineSpeech;
const stats: ProviderRequestStat[] = [];

function config(o: { openaiUrl: string; elevenUrl: string }): SpeechConfig {
  return {
    voices: [
      {
        id: 'oa',
        provider: 'openai',
        providerVoice: 'alloy',
        name: 'OA',
        language: 'en-US',
        gender: 'female',
      },
      {
        id: 'el',
        provider: 'elevenlabs',
        providerVoice: 'VOICEabcdefghij12345',
        model: 'eleven_test',
        name: 'EL',
        language: 'en-US',
        gender: 'male',
      },
    ],
    openai: { url: o.openaiUrl, apiKey: openai.settings.apiKey },
    elevenlabs: { url: o.elevenUrl, apiKey: eleven.settings.apiKey },
    firstByteTimeoutMs: 1500,
    stallTimeoutMs: 1500,
  };
}

beforeAll(async () => {
  openai = await openAiStandin();
  eleven = await elevenLabsStandin();
  speech = createEngineSpeech({
    config: config({ openaiUrl: openai.url, elevenUrl: eleven.url }),
    decoder: createAudioDecoder(),
    onRequest: (s) => stats.push(s),
  });
});
afterAll(async () => {
  await speech.close();
  await openai.close();
  await eleven.close();
});

/** Synthesizes through the scheduler's lane like a session, noting when audio streamed in. */
async function say(
  voiceId: string,
  text = TEXT,
  extra: Partial<SynthesisRequest> = {},
): Promise<{ seg: SpeechSegment; streamed: number; firstAudioBeforeEnd: boolean }> {
  const lane = speech.synthesis.lane(`t-${Math.random()}`);
  let streamed = 0;
  let resolved = false;
  let firstAudioBeforeEnd = false;
  try {
    const whole = await lane.synthesize({
      text,
      voiceId,
      speed: 1,
      onAudio: (pcm) => {
        if (streamed === 0) firstAudioBeforeEnd = !resolved;
        streamed += pcm.length;
      },
      ...extra,
    });
    resolved = true;
    // the request ends with the audio; placed or aligned timings follow
    expect(whole.timing).toBe('none');
    const seg = whole.later ? { ...whole, ...(await whole.later) } : whole;
    return { seg, streamed, firstAudioBeforeEnd };
  } finally {
    lane.close();
  }
}

async function failureOf(voiceId: string, text = SECRET_TEXT): Promise<Error & { reason?: string }> {
  try {
    await say(voiceId, text);
  } catch (err) {
    return err as Error & { reason?: string };
  }
  throw new Error('expected a failure');
}

describe('OpenAI-compatible provider', () => {
  it('streams 24 kHz PCM in as 48 kHz audio before the request ends, and aligns espeak phonemes to it', async () => {
    openai.settings.fault = 'none';
    const { seg, streamed, firstAudioBeforeEnd } = await say('oa');
    expect(firstAudioBeforeEnd).toBe(true);
    expect(streamed).toBe(seg.pcm.length);
    const sent = openai.requests.at(-1)!;
    expect(sent.body).toMatchObject({ model: 'tts-1', input: TEXT, voice: 'alloy', response_format: 'pcm' });
    expect(sent.headers['authorization']).toBe(`Bearer ${openai.settings.apiKey}`);
    // the stand-in's 24 kHz clip, twice as many samples at 48 kHz
    expect(
      Math.abs(
        seg.pcm.length -
          2 * (await import('../../testing/voice-standins.js').then((m) => m.standinSpeech(TEXT))).length,
      ),
    ).toBeLessThanOrEqual(2);
    expect(seg.timing).toBe('aligned');
    expect(seg.phonemes.length).toBeGreaterThan(20);
    for (let i = 1; i < seg.phonemes.length; i++)
      expect(seg.phonemes[i]!.startSample).toBeGreaterThanOrEqual(seg.phonemes[i - 1]!.startSample);
  });

  it('accepts a WAV stream and passes the speed on', async () => {
    openai.settings.fault = 'wav';
    const { seg } = await say('oa', TEXT, { speed: 1.5 });
    expect(seg.pcm.length).toBeGreaterThan(48_000);
    expect(openai.requests.at(-1)!.body['speed']).toBe(1.5);
    openai.settings.fault = 'none';
  });
});

describe('ElevenLabs provider', () => {
  it('streams JSON lines of base64 PCM and places espeak phonemes on the character timings', async () => {
    eleven.settings.fault = 'none';
    const { seg, firstAudioBeforeEnd } = await say('el');
    expect(firstAudioBeforeEnd).toBe(true);
    const sent = eleven.requests.at(-1)!;
    expect(sent.path).toBe(
      '/v1/text-to-speech/VOICEabcdefghij12345/stream/with-timestamps?output_format=pcm_24000',
    );
    expect(sent.headers['xi-api-key']).toBe(eleven.settings.apiKey);
    expect(sent.body).toMatchObject({ text: TEXT, model_id: 'eleven_test' });
    expect(seg.timing).toBe('placed');
    expect(seg.words.map((w) => w.text.toLowerCase())).toEqual(
      TEXT.toLowerCase().replace('.', '').split(' '),
    );
    // each word begins where the provider said its first character begins
    const fox = seg.words.find((w) => w.text === 'fox')!;
    const jumps = seg.words.find((w) => w.text === 'jumps')!;
    expect(fox.startSample).toBeLessThan(jumps.startSample);
    expect(seg.phonemes.at(-1)!.startSample).toBeLessThanOrEqual(seg.pcm.length);
  });

  it('an unlisted ElevenLabs voice id goes to ElevenLabs as that voice', async () => {
    await say('AbCdEfGhIjKlMnOpQrSt', 'Hello there.');
    expect(eleven.requests.at(-1)!.path).toContain('/v1/text-to-speech/AbCdEfGhIjKlMnOpQrSt/stream/');
  });
});

describe('provider failures', () => {
  const cases: Array<[string, VoiceStandin['settings']['fault'], string]> = [
    ['401', 401, 'unauthorized'],
    ['429', 429, 'rate_limited'],
    ['5xx', 500, 'provider_error'],
    ['garbled audio', 'garbled', 'bad_audio'],
    ['an MP3 answer', 'mp3', 'bad_audio'],
    ['an empty body', 'empty', 'no_audio'],
    ['no first byte', 'hang', 'timeout'],
    ['a stalled stream', 'stall', 'timeout'],
  ];
  for (const [name, fault, reason] of cases) {
    it(`${name} → ${reason}, for both providers, naming neither key nor text`, async () => {
      for (const [standin, voice] of [
        [openai, 'oa'],
        [eleven, 'el'],
      ] as const) {
        standin.settings.fault = fault;
        const err = await failureOf(voice);
        standin.settings.fault = 'none';
        expect(err.reason).toBe(reason);
        expect(err.message).not.toContain(standin.settings.apiKey);
        expect(err.message).not.toContain('purple');
        expect(stats.at(-1)).toMatchObject({ failure: reason });
      }
    });
  }

  it('a refused connection → connection_failed', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const dead = createEngineSpeech({
      config: config({ openaiUrl: `http://127.0.0.1:${port}/v1`, elevenUrl: `http://127.0.0.1:${port}` }),
      decoder: createAudioDecoder(),
    });
    try {
      for (const voiceId of ['oa', 'el']) {
        const lane = dead.synthesis.lane(voiceId);
        const err = await lane.synthesize({ text: SECRET_TEXT, voiceId, speed: 1 }).catch((e: unknown) => e);
        expect((err as { reason?: string }).reason).toBe('connection_failed');
        lane.close();
      }
    } finally {
      await dead.close();
    }
  });
});

describe('abort', () => {
  it('closes the upstream request at once and nothing more streams in', async () => {
    for (const [standin, voice] of [
      [openai, 'oa'],
      [eleven, 'el'],
    ] as const) {
      standin.settings.paceMs = 100; // a slow stream, so the abort lands mid-way
      const abort = new AbortController();
      let after = 0;
      let aborted = false;
      const done = say(voice, TEXT, {
        signal: abort.signal,
        onAudio: () => {
          if (aborted) after++;
          else {
            aborted = true;
            abort.abort();
          }
        },
      }).catch((e: unknown) => e);
      expect(await done).toBeInstanceOf(AbortedError);
      await new Promise((r) => setTimeout(r, 300));
      standin.settings.paceMs = 10;
      expect(after).toBe(0);
      expect(standin.requests.at(-1)!.closedEarly).toBe(true);
      expect(standin.requests.at(-1)!.finished).toBe(false);
    }
  });
});
