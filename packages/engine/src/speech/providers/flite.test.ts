/** The embedded Flite voices: real synthesis from the npm package's WASI build, exact phoneme timings. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createAudioDecoder } from '../../audio/decoder.js';
import { visemeOf } from '../../lipsync/visemes.js';
import { createEngineSpeech } from '../engine-speech.js';
import { fliteText, ipaOfArpabet } from '../flite.js';
import { DEFAULT_SPEECH_CONFIG } from '../voice-book.js';

describe('Flite provider', () => {
  it('is listed, speaks a sentence at 48 kHz with its own phonemes, lead-in cut, speed honoured', async () => {
    const speech = createEngineSpeech({ config: DEFAULT_SPEECH_CONFIG, decoder: createAudioDecoder() });
    try {
      expect(
        speech.voices
          .list()
          .filter((v) => v.provider === 'flite')
          .map((v) => v.id),
      ).toEqual(['en-us-natural-female', 'en-us-natural-male', 'en-gb-natural-male']);
      const lane = speech.synthesis.lane('f');
      const text = 'Good morning, and thank you for calling.';
      const seg = await lane.synthesize({ text, voiceId: 'en-us-natural-female', speed: 1 });
      const slow = await lane.synthesize({ text, voiceId: 'en-us-natural-female', speed: 0.7 });
      lane.close();
      expect(seg.pcm.length / 48_000).toBeGreaterThan(1.5);
      expect(seg.pcm.length / 48_000).toBeLessThan(4);
      expect(slow.pcm.length).toBeGreaterThan(seg.pcm.length * 1.2);
      expect(seg.timing).toBe('exact'); // the provider's own timings
      // the lead-in pause is cut: the first phoneme is /g/ of "good", 10 ms in
      expect(seg.phonemes[0]).toEqual({ ipa: 'ɡ', startSample: 480 });
      // "morning" closes the lips for its /m/ and "thank" shows the tongue for /θ/
      const visemes = seg.phonemes.map((p) => visemeOf(p.ipa));
      expect(visemes).toContain('A');
      expect(visemes).toContain('H');
      for (let i = 1; i < seg.phonemes.length; i++)
        expect(seg.phonemes[i]!.startSample).toBeGreaterThanOrEqual(seg.phonemes[i - 1]!.startSample);
      let peak = 0;
      for (const s of seg.pcm) peak = Math.max(peak, Math.abs(s));
      expect(peak).toBeGreaterThan(5000);
    } finally {
      await speech.close();
    }
  });

  it('gives Flite plain ASCII (its WASI build crashes sooner on other text) and no leading dash', () => {
    expect(fliteText('Ünïcödé — “quoted” ‘x’ 🙂 -ok')).toBe('Unicode ,  "quoted" \'x\'   -ok');
    expect(fliteText('-rf everything')).toBe('rf everything');
  });

  it('maps every CMU phone to IPA the viseme table knows', () => {
    expect(ipaOfArpabet('th')).toBe('θ');
    expect(ipaOfArpabet('ay1')).toBe('aɪ');
    expect(ipaOfArpabet('pau')).toBe('');
  });
});

it('loading the speech modules prints nothing (node:wasi is imported in the Flite child only)', () => {
  const dist = new URL('../../../dist/', import.meta.url);
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `await import(${JSON.stringify(new URL('speech/engine-speech.js', dist).href)});` +
        `await import(${JSON.stringify(new URL('host/index.js', dist).href)});` +
        `await import(${JSON.stringify(new URL('config.js', dist).href)});`,
    ],
    { encoding: 'utf8' },
  );
  expect(r.status).toBe(0);
  expect(r.stderr).toBe(''); // no "ExperimentalWarning: WASI …" line in the server's or engines' output
});
