import { describe, expect, it } from 'vitest';
import { trimLeadingSilence } from './trim.js';
import type { SpeechSegment } from './types.js';

const seg = (): SpeechSegment => ({
  pcm: Int16Array.from({ length: 4800 }, (_, i) => (i >= 2400 ? 1000 : 0)),
  sampleRateHz: 48000,
  phonemes: [
    { ipa: '', startSample: 0 },
    { ipa: 'p', startSample: 2400 },
    { ipa: 'a', startSample: 3000 },
  ],
  words: [{ text: 'pa', startSample: 2400, endSample: 4800 }],
});

describe('trimLeadingSilence', () => {
  it('cuts the lead-in to 10 ms before the first sounding phoneme and shifts every position', () => {
    const t = trimLeadingSilence(seg());
    expect(t.pcm.length).toBe(4800 - 1920);
    expect(t.pcm[480]).toBe(1000);
    expect(t.pcm[479]).toBe(0);
    expect(t.phonemes).toEqual([
      { ipa: 'p', startSample: 480 },
      { ipa: 'a', startSample: 1080 },
    ]);
    expect(t.words).toEqual([{ text: 'pa', startSample: 480, endSample: 2880 }]);
  });

  it('leaves a segment that starts at once, or has no sounding phoneme, as it is', () => {
    const s = seg();
    s.phonemes = [{ ipa: 'a', startSample: 100 }];
    expect(trimLeadingSilence(s)).toBe(s);
    const quiet = seg();
    quiet.phonemes = [{ ipa: '', startSample: 0 }];
    expect(trimLeadingSilence(quiet)).toBe(quiet);
  });
});
