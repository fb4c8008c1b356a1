import { describe, expect, it } from 'vitest';
import { Viseme } from '../face-state.js';
import { createTts } from '../speech/tts.js';
import { analyzeAudioMouth, analyzeOpenness } from './audio-mouth.js';
import { buildMouthTrack, frameCenterSample } from './mouth-track.js';
import { MOUTH_SHAPES } from './mouth-shapes.js';
import { visemeOf } from './visemes.js';

const ms = (x: number): number => (x * 48_000) / 1000;

describe('visemeOf', () => {
  it.each([
    ['p', 'A'],
    ['b', 'A'],
    ['m', 'A'],
    ['f', 'G'],
    ['v', 'G'],
    ['uː', 'F'],
    ['w', 'F'],
    ['ˈɔː', 'E'],
    ['oʊ', 'E'],
    ['ˈɑː', 'D'],
    ['æ', 'D'],
    ['ɛ', 'C'],
    ['ə', 'C'],
    ['l', 'H'],
    ['θ', 'H'],
    ['t', 'B'],
    ['s', 'B'],
    ['iː', 'B'],
    ['', 'X'],
    ['ʃ', 'B'],
    ['ɐ', 'D'],
    ['y', 'F'],
    ['ø', 'E'],
  ])('%s → %s', (ipa, v) => expect(visemeOf(ipa)).toBe(v));
});

describe('buildMouthTrack', () => {
  const track = buildMouthTrack({
    phonemes: [
      { ipa: 'ˈɑː', startSample: ms(100) },
      { ipa: 'p', startSample: ms(300) }, // a 20 ms closure, as espeak places it
      { ipa: 'ɑː', startSample: ms(320) },
      { ipa: '', startSample: ms(600) },
    ],
    totalSamples: ms(900),
  });

  it('leads the sound by about 20 ms and reaches the shape within the phoneme', () => {
    expect(track.at(ms(200)).open).toBeGreaterThan(0.8);
    // the opening starts before the sound does (lead), never more than lead + blend (60 ms) early
    expect(track.at(ms(100) - ms(10)).open).toBeGreaterThan(0.3);
    expect(track.at(ms(100) - ms(65)).open).toBeLessThan(0.02);
  });

  it('holds a short closure at least 60 ms, ending at the release', () => {
    const closed = [];
    for (let t = 200; t <= 360; t += 5) if (track.at(ms(t)).open < 0.15) closed.push(t);
    expect(closed.length * 5).toBeGreaterThanOrEqual(55);
    expect(Math.max(...closed)).toBeLessThanOrEqual(320);
    expect(track.visemeAt(ms(285))).toBe(Viseme.A);
  });

  it('moves continuously: no big jumps between 40 ms frames away from closures', () => {
    let prev = track.at(frameCenterSample(0, 25));
    for (let n = 1; n < 22; n++) {
      const cur = track.at(frameCenterSample(n, 25));
      const nearClosure =
        track.visemeAt(frameCenterSample(n, 25)) === Viseme.A ||
        track.visemeAt(frameCenterSample(n - 1, 25)) === Viseme.A;
      // a full opening (0 → 0.88) takes at least two frames
      if (!nearClosure) expect(Math.abs(cur.open - prev.open)).toBeLessThan(0.6);
      prev = cur;
    }
  });

  it('rests after the speech and marks stressed syllables', () => {
    expect(track.at(ms(800))).toEqual(expect.objectContaining({ open: MOUTH_SHAPES.X.open }));
    expect(track.emphasisAt(ms(200))).toBeGreaterThan(0.9);
    expect(track.emphasisAt(ms(450))).toBeLessThan(0.1);
  });

  it('frame n samples the centre of its 40 ms interval', () => {
    expect(frameCenterSample(0, 25)).toBe(960);
    expect(frameCenterSample(10, 25)).toBe(20_160);
  });
});

describe('audio-only mouth', () => {
  it('follows the phoneme-derived openness of real speech and closes for bilabials', async () => {
    const tts = createTts();
    const seg = await tts.synthesize({
      text: 'Papa bought a big bag of apples, mama made my bed.',
      voiceId: 'en-us-male',
      speed: 1,
    });
    const truth = buildMouthTrack({ phonemes: seg.phonemes, totalSamples: seg.pcm.length });
    const { openness } = analyzeOpenness(seg.pcm);
    const a: number[] = [];
    const b: number[] = [];
    for (let f = 0; f < openness.length; f++) {
      a.push(openness[f]!);
      b.push(truth.at(f * 480 + 960).open); // truth without its 20 ms lead
    }
    const mean = (x: number[]) => x.reduce((s, v) => s + v, 0) / x.length;
    const ma = mean(a);
    const mb = mean(b);
    let num = 0;
    let da = 0;
    let db = 0;
    for (let i = 0; i < a.length; i++) {
      num += (a[i]! - ma) * (b[i]! - mb);
      da += (a[i]! - ma) ** 2;
      db += (b[i]! - mb) ** 2;
    }
    const r = num / Math.sqrt(da * db);
    expect(r).toBeGreaterThan(0.5);
    const track = analyzeAudioMouth(seg.pcm);
    const silenceEnd = seg.phonemes.find((p) => p.ipa !== '')!.startSample;
    expect(track.at(Math.max(0, silenceEnd - ms(60))).open).toBeLessThan(0.15);
  });

  it('is silent on silence', () => {
    const track = analyzeAudioMouth(new Int16Array(48_000));
    expect(track.at(24_000).open).toBeLessThan(0.1);
  });
});
