import { describe, expect, it } from 'vitest';
import { floatToInt16, resample, resampleRange, resampleRangeDirect } from './resample.js';
import { splitSentences } from './sentences.js';
import { espeakSpeech } from '../testing/espeak-speech.js';
import { VoiceBook } from './voice-book.js';
import { VOICES } from './voices.js';

describe('resample', () => {
  it('keeps an impulse at the scaled position (no delay)', () => {
    const input = new Float32Array(2205);
    input[1000] = 1;
    const out = resample(input, 22_050, 48_000);
    expect(out.length).toBe(4800);
    let peak = 0;
    for (let i = 1; i < out.length; i++) if (out[i]! > out[peak]!) peak = i;
    expect(Math.abs(peak - (1000 * 48_000) / 22_050)).toBeLessThanOrEqual(1);
  });

  it('passes a 1 kHz tone at unit gain and converts 44.1 kHz too', () => {
    for (const from of [22_050, 44_100, 16_000]) {
      const input = new Float32Array(from / 2).map((_, i) => Math.sin((2 * Math.PI * 1000 * i) / from));
      const out = resample(input, from, 48_000);
      const mid = out.subarray(4800, 19200);
      const rms = Math.sqrt(mid.reduce((a, v) => a + v * v, 0) / mid.length);
      expect(rms).toBeGreaterThan(0.69);
      expect(rms).toBeLessThan(0.72);
    }
  });

  it('gives the kernel values through its polyphase tables, whole or piece by piece', () => {
    const from = 22_050;
    const input = new Int16Array(from / 4).map((_, i) =>
      Math.round(9000 * Math.sin(i * 0.07) + 4000 * Math.sin(i * 1.3) + ((i * 7919) % 2001) - 1000),
    );
    for (const [fromHz, toHz] of [
      [22_050, 48_000],
      [24_000, 48_000],
      [44_100, 48_000],
      [16_000, 48_000],
      [96_000, 48_000],
      [48_000, 22_050],
    ] as const) {
      const n = Math.round((input.length * toHz) / fromHz);
      const direct = resampleRangeDirect(input, input.length, fromHz, toHz, 0, n);
      const whole = resampleRange(input, input.length, fromHz, toHz, 0, n);
      const piece = resampleRange(input, input.length, fromHz, toHz, 1000, 1777);
      let worst = 0;
      for (let i = 0; i < n; i++) worst = Math.max(worst, Math.abs(whole[i]! - direct[i]!));
      for (let i = 0; i < piece.length; i++) worst = Math.max(worst, Math.abs(piece[i]! - direct[1000 + i]!));
      expect(worst, `${fromHz} → ${toHz}`).toBeLessThan(0.05); // of an int16 sample
      expect(Math.max(...direct.map(Math.abs)), `${fromHz} → ${toHz}`).toBeGreaterThan(1000);
    }
  });

  it('clamps when converting to int16', () => {
    expect([...floatToInt16(Float32Array.from([0.5, 2, -2]), 32767)]).toEqual([16384, 32767, -32768]);
  });
});

describe('splitSentences', () => {
  it('splits on terminators, keeps abbreviations and decimals', () => {
    expect(splitSentences('Hello there! Dr. Smith paid 3.5 dollars. Really?  Yes…\nNew line')).toEqual([
      'Hello there!',
      'Dr. Smith paid 3.5 dollars.',
      'Really?',
      'Yes…',
      'New line',
    ]);
    expect(splitSentences('你好。今天好吗？')).toEqual(['你好。', '今天好吗？']);
    expect(splitSentences('   ')).toEqual([]);
  });
});

describe('espeak-ng TTS', () => {
  it('synthesizes a sentence at 48 kHz with phonemes and words at sample positions', async () => {
    const tts = espeakSpeech();
    const seg = await tts.synthesize({ text: 'Papa bought a big bag.', voiceId: 'en-us-male', speed: 1 });
    expect(seg.sampleRateHz).toBe(48_000);
    expect(seg.pcm.length).toBeGreaterThan(48_000 * 0.8);
    expect(seg.words.map((w) => w.text)).toEqual(['Papa', 'bought', 'a', 'big', 'bag']);
    const ps = seg.phonemes.filter((p) => p.ipa !== '');
    expect(ps[0]?.ipa).toBe('p');
    for (let i = 1; i < ps.length; i++)
      expect(ps[i]!.startSample).toBeGreaterThanOrEqual(ps[i - 1]!.startSample);
    // audio energy is present right after the first word starts and silence precedes the first phoneme
    const at = ps[1]!.startSample;
    const window = seg.pcm.subarray(at, at + 2400);
    const rms = Math.sqrt(window.reduce((a, v) => a + v * v, 0) / window.length);
    expect(rms).toBeGreaterThan(500);
    await tts.close();
  });

  it('speaks faster at a higher speed and rejects unknown voices', async () => {
    const tts = espeakSpeech();
    const slow = await tts.synthesize({
      text: 'One two three four five.',
      voiceId: 'en-us-female',
      speed: 0.5,
    });
    const fast = await tts.synthesize({
      text: 'One two three four five.',
      voiceId: 'en-us-female',
      speed: 2,
    });
    expect(slow.pcm.length).toBeGreaterThan(fast.pcm.length * 2);
    await expect(tts.synthesize({ text: 'x', voiceId: 'klingon', speed: 1 })).rejects.toThrow(
      /unknown voice/,
    );
  });

  it('every listed voice speaks', async () => {
    const tts = espeakSpeech();
    const samples: Record<string, string> = {
      ja: 'こんにちは',
      zh: '你好',
      ar: 'مرحبا',
      hi: 'नमस्ते',
      ru: 'привет',
    };
    for (const v of VOICES) {
      const text = samples[v.language.slice(0, 2)] ?? 'Hello';
      const seg = await tts.synthesize({ text, voiceId: v.id, speed: 1 });
      expect(seg.pcm.length, v.id).toBeGreaterThan(4800);
    }
    expect(new VoiceBook().find('ja-female')?.kanaOnly).toBe(true);
  });
});
