import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { placeOnCharacters } from '../lipsync/character-placement.js';
import { JsonObjectSplitter } from './providers/json-objects.js';
import { PcmStream } from './providers/pcm-stream.js';
import { floatToInt16, resample } from './resample.js';
import { StreamResampler } from './stream-resampler.js';
import { VoiceBook, parseVoicesFile } from './voice-book.js';

function noise(n: number, seed = 1): Int16Array {
  const out = new Int16Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out[i] = (x % 20000) - 10000;
  }
  return out;
}

describe('StreamResampler', () => {
  it('gives exactly the one-shot resampling, whatever the chunking', () => {
    const input = noise(24_000 + 17);
    const whole = floatToInt16(resample(input, 24_000, 48_000));
    for (const size of [1, 7, 480, 5000]) {
      const r = new StreamResampler(48_000);
      const parts: number[] = [];
      for (let i = 0; i < input.length; i += size) parts.push(...r.push(input.subarray(i, i + size), 24_000));
      parts.push(...r.end());
      expect(parts.length).toBe(whole.length);
      expect(Int16Array.from(parts)).toEqual(whole);
    }
  });
});

describe('PcmStream', () => {
  it('joins samples split across chunks (odd byte counts)', () => {
    const s = new PcmStream('openai', { sampleRateHz: 24_000, wav: 'auto' });
    const bytes = Buffer.from(new Int16Array([1000, -2000, 3000, -4000]).buffer);
    const got = [...s.push(bytes.subarray(0, 5)), ...s.push(bytes.subarray(5))];
    expect(got).toEqual([1000, -2000, 3000, -4000]);
  });

  it('reads a streamed WAV header (its rate and channels) split anywhere', () => {
    const h = Buffer.alloc(44);
    h.write('RIFFxxxxWAVEfmt ', 0, 'latin1');
    h.writeUInt32LE(16, 16);
    h.writeUInt16LE(1, 20);
    h.writeUInt16LE(2, 22);
    h.writeUInt32LE(16_000, 24);
    h.writeUInt16LE(16, 34);
    h.write('data', 36, 'latin1');
    h.writeUInt32LE(0xffffffff, 40);
    const stereo = Buffer.from(new Int16Array([100, 300, -100, -300]).buffer);
    const all = Buffer.concat([h, stereo]);
    const s = new PcmStream('openai', { sampleRateHz: 24_000, wav: 'auto' });
    const got: number[] = [];
    for (let i = 0; i < all.length; i += 3) got.push(...s.push(all.subarray(i, i + 3)));
    expect(got).toEqual([200, -200]);
    expect(s.sampleRateHz).toBe(16_000);
  });

  it('refuses what is not PCM, and an empty stream', () => {
    for (const start of ['{"error":1}', 'ID3\u0004', 'OggS']) {
      const s = new PcmStream('openai', { sampleRateHz: 24_000, wav: 'auto' });
      expect(() => s.push(Buffer.from(start, 'latin1'))).toThrow(
        expect.objectContaining({ reason: 'bad_audio' }),
      );
    }
    expect(() => new PcmStream('openai', { sampleRateHz: 24_000, wav: 'auto' }).end()).toThrow(
      expect.objectContaining({ reason: 'no_audio' }),
    );
  });
});

describe('voices file', () => {
  const write = (content: unknown): string => {
    const file = join(mkdtempSync(join(tmpdir(), 'mp-voices-')), 'voices.json');
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };
  const good = {
    id: 'nova',
    provider: 'openai',
    providerVoice: 'nova',
    model: 'tts-1',
    name: 'Nova',
    language: 'en-US',
    gender: 'female',
  };

  it('reads a good file', () => {
    expect(parseVoicesFile(write({ voices: [good] }))).toEqual([good]);
  });

  it('names the file and the field at fault', () => {
    const cases: Array<[unknown, RegExp]> = [
      ['{not json', /voices file .*voices\.json: /],
      [{}, /"voices" must be an array/],
      [
        { voices: [{ ...good, provider: 'azure' }] },
        /"voices\[0\]\.provider" must be "elevenlabs", "openai" or "local"/,
      ],
      [{ voices: [good, { ...good }] }, /"voices\[1\]\.id" "nova" is already a voice/],
      [{ voices: [{ ...good, id: 'en-us-female' }] }, /"voices\[0\]\.id" "en-us-female" is already a voice/],
      [
        { voices: [{ ...good, providerVoice: '' }] },
        /"voices\[0\]\.providerVoice" must be a non-empty string/,
      ],
      [
        { voices: [{ ...good, language: 'english please' }] },
        /"voices\[0\]\.language" must be a language tag/,
      ],
      [{ voices: [{ ...good, gender: 'x' }] }, /"voices\[0\]\.gender"/],
    ];
    for (const [content, message] of cases) {
      const file = write(content);
      expect(() => parseVoicesFile(file)).toThrow(message);
      expect(() => parseVoicesFile(file)).toThrow(file);
    }
  });

  it('lists a provider’s voices only when the provider is configured', () => {
    const voices = parseVoicesFile(
      write({ voices: [good, { ...good, id: 'rachel', provider: 'elevenlabs' }] }),
    );
    const base = { voices, firstByteTimeoutMs: 1000, stallTimeoutMs: 1000 };
    const off = new VoiceBook(base);
    expect(off.find('nova')).toBeUndefined();
    expect(off.find('AbCdEfGhIjKlMnOpQrSt')).toBeUndefined();
    const on = new VoiceBook({ ...base, openai: { url: 'http://127.0.0.1:1/v1' } });
    expect(on.find('nova')).toMatchObject({
      provider: 'openai',
      providerVoice: 'nova',
      espeakVoice: 'gmw/en-US',
    });
    expect(on.list().some((v) => v.id === 'rachel')).toBe(false);
    const el = new VoiceBook({ ...base, elevenlabs: { url: 'http://127.0.0.1:1', apiKey: 'k' } });
    expect(el.find('AbCdEfGhIjKlMnOpQrSt')).toMatchObject({
      provider: 'elevenlabs',
      providerVoice: 'AbCdEfGhIjKlMnOpQrSt',
    });
    expect(el.find('not an id!')).toBeUndefined();
  });
});

describe('placeOnCharacters', () => {
  it("stretches each word's phonemes onto the provider's span of that word", () => {
    const text = 'Hi there.';
    const reading = {
      phonemes: [
        { ipa: '', startSample: 0 },
        { ipa: 'h', startSample: 1000 },
        { ipa: 'aɪ', startSample: 2000 },
        { ipa: 'ð', startSample: 5000 },
        { ipa: 'ɛ', startSample: 6000 },
        { ipa: 'ɹ', startSample: 8000 },
        { ipa: '', startSample: 9000 },
      ],
      words: [
        { text: 'Hi', startSample: 1000, endSample: 5000 },
        { text: 'there', startSample: 5000, endSample: 9000 },
      ],
    };
    // the provider says "Hi" at 0.5–0.7 s and "there" at 1.0–1.4 s
    const chars = [...text].map((char, i) => {
      const t = i < 2 ? 0.5 + i * 0.1 : i === 2 ? 0.7 : 1.0 + (i - 3) * 0.08;
      return { char, startSec: t, endSec: t + (i < 2 ? 0.1 : 0.08) };
    });
    const placed = placeOnCharacters(text, reading, chars, 96_000);
    expect(placed.words.map((w) => [w.text, w.startSample])).toEqual([
      ['Hi', 24_000],
      ['there', 48_000],
    ]);
    expect(placed.phonemes.find((p) => p.ipa === 'h')!.startSample).toBe(24_000);
    expect(placed.phonemes.find((p) => p.ipa === 'ð')!.startSample).toBe(48_000);
    const ai = placed.phonemes.find((p) => p.ipa === 'aɪ')!.startSample;
    expect(ai).toBeGreaterThan(24_000);
    expect(ai).toBeLessThan(48_000);
  });
});

describe('JsonObjectSplitter', () => {
  it('splits lines or back-to-back objects cut anywhere, braces and quotes inside strings included', () => {
    const objects = ['{"a":"x}{\\"y","b":{"c":[1,2]}}', '{"audio_base64":"AAA="}', '{"n":null}'];
    for (const sep of ['\n', '', '\r\n\n']) {
      const text = objects.join(sep);
      for (const size of [1, 3, 7, text.length]) {
        const s = new JsonObjectSplitter();
        const got: string[] = [];
        for (let i = 0; i < text.length; i += size) got.push(...s.push(text.slice(i, i + size)));
        expect(got).toEqual(objects);
        expect(s.end()).toBe('');
      }
    }
  });

  it('hands back text that is no JSON object (to be refused), and an unfinished object at the end', () => {
    expect(new JsonObjectSplitter().push('oops {"a":1}')).toEqual(['oops {"a":1}']);
    const s = new JsonObjectSplitter();
    expect(s.push('{"a":1}{"b":')).toEqual(['{"a":1}']);
    expect(s.end()).toBe('{"b":');
  });
});
