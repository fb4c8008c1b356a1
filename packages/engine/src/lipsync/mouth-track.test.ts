import { describe, expect, it } from 'vitest';
import { Viseme } from '../face-state.js';
import { espeakSpeech } from '../testing/espeak-speech.js';
import { MOUTH_SHAPES } from './mouth-shapes.js';
import { buildMouthTrack } from './mouth-track.js';

const ms = (x: number): number => Math.round((x * 48_000) / 1000);
const CLOSED = 0.15;

/** Times (ms, 1 ms steps) in [from, to] where the mouth's openness satisfies `pred`. */
function when(
  track: ReturnType<typeof buildMouthTrack>,
  from: number,
  to: number,
  pred: (open: number) => boolean,
): number[] {
  const out: number[] = [];
  for (let t = from; t <= to; t++) if (pred(track.at(ms(t)).open)) out.push(t);
  return out;
}

describe('buildMouthTrack timing', () => {
  it.each(['ˈɑː', 'ɛ', 'ɔː', 'l'])(
    'the shape of a %s starting at 300 ms shows 20 ms early (±20 ms) and is reached inside it',
    (ipa) => {
      const target =
        MOUTH_SHAPES[
          buildMouthTrack({ phonemes: [{ ipa, startSample: 0 }], totalSamples: ms(300) }).visemeAt(ms(100))
        ];
      const track = buildMouthTrack({
        phonemes: [
          { ipa: '', startSample: 0 },
          { ipa, startSample: ms(300) },
          { ipa: '', startSample: ms(500) },
        ],
        totalSamples: ms(900),
      });
      const halfway = when(track, 150, 450, (o) => o >= target.open / 2)[0]!;
      expect(halfway).toBeGreaterThanOrEqual(300 - 20 - 20);
      expect(halfway).toBeLessThanOrEqual(300 - 20 + 20);
      expect(track.at(ms(400))).toEqual(expect.objectContaining({ open: target.open, round: target.round }));
      expect(track.at(ms(250)).open).toBeLessThan(target.open / 2);
    },
  );

  it('holds a 20 ms bilabial closed for at least 60 ms, ending at its release (20 ms early)', () => {
    const track = buildMouthTrack({
      phonemes: [
        { ipa: 'ˈɑː', startSample: ms(100) },
        { ipa: 'p', startSample: ms(300) }, // espeak gives a stop ~20 ms: its closure is earlier
        { ipa: 'ɑː', startSample: ms(320) },
        { ipa: '', startSample: ms(600) },
      ],
      totalSamples: ms(900),
    });
    const closed = when(track, 150, 450, (o) => o < CLOSED);
    expect(closed.length).toBeGreaterThanOrEqual(60);
    expect(closed.at(-1)! - closed[0]! + 1).toBe(closed.length); // one run
    expect(Math.abs(closed.at(-1)! - (320 - 20))).toBeLessThanOrEqual(10);
    expect(track.visemeAt(ms(270))).toBe(Viseme.A);
  });

  it('holds a lip-bite (f) too, and opens fully for a short vowel between two closures', () => {
    const track = buildMouthTrack({
      phonemes: [
        { ipa: '', startSample: 0 },
        { ipa: 'f', startSample: ms(200) },
        { ipa: 'ˈɑ', startSample: ms(220) },
        { ipa: 'm', startSample: ms(270) }, // a 50 ms vowel
        { ipa: 'ə', startSample: ms(340) },
        { ipa: '', startSample: ms(500) },
      ],
      totalSamples: ms(700),
    });
    const bitten = when(track, 100, 300, () => true).filter((t) => track.at(ms(t)).lipBite > 0.5);
    expect(bitten.length).toBeGreaterThanOrEqual(60);
    expect(track.at(ms(245 - 20)).open).toBeGreaterThan(0.5);
    expect(when(track, 230, 330, (o) => o < CLOSED).length).toBeGreaterThanOrEqual(50);
  });

  it('rests before and after the speech and ignores language-switch markers', () => {
    const phonemes = [
      { ipa: 'h', startSample: ms(100) },
      { ipa: 'ˈɛ', startSample: ms(160) },
      { ipa: '(en)', startSample: ms(200) },
      { ipa: 'l', startSample: ms(260) },
      { ipa: 'oʊ', startSample: ms(320) },
      { ipa: '', startSample: ms(500) },
    ];
    const track = buildMouthTrack({ phonemes, totalSamples: ms(800) });
    const plain = buildMouthTrack({
      phonemes: phonemes.filter((p) => p.ipa !== '(en)'),
      totalSamples: ms(800),
    });
    for (let t = 0; t < 800; t += 10) expect(track.at(ms(t))).toEqual(plain.at(ms(t)));
    expect(track.at(ms(20))).toEqual(MOUTH_SHAPES.X);
    expect(track.at(ms(700))).toEqual(MOUTH_SHAPES.X);
    expect(track.at(ms(5000))).toEqual(MOUTH_SHAPES.X);
    expect(track.visemeAt(ms(400))).toBe(Viseme.E);
  });

  it('marks stressed syllables for emphasis', () => {
    const track = buildMouthTrack({
      phonemes: [
        { ipa: 'ə', startSample: ms(100) },
        { ipa: 'ˈɡ', startSample: ms(200) },
        { ipa: 'ˈeɪ', startSample: ms(250) },
        { ipa: 'n', startSample: ms(400) },
        { ipa: '', startSample: ms(500) },
      ],
      totalSamples: ms(700),
    });
    expect(track.emphasisAt(ms(300))).toBeGreaterThan(0.9);
    expect(track.emphasisAt(ms(120))).toBeLessThan(0.1);
    expect(track.emphasisAt(ms(600))).toBe(0);
  });
});

describe('buildMouthTrack on synthesized speech', () => {
  it.each([
    ['en-us-female', 'My mom made a map of the bumpy paths by the pond.'],
    ['de-male', 'Mama und Papa bauen im Mai ein Boot am Meer.'],
    ['fr-female', 'Mon papa a mis une pomme bien mûre pour maman.'],
    ['ru-male', 'Мама мыла раму, а папа пил молоко.'],
    ['zh-female', '爸爸妈妈明天去北京买面包。'],
  ])('%s: closes for every bilabial and moves smoothly elsewhere', async (voiceId, text) => {
    const seg = await espeakSpeech().synthesize({ text, voiceId, speed: 1 });
    const track = buildMouthTrack({ phonemes: seg.phonemes, totalSamples: seg.pcm.length });
    const lead = ms(20);
    const bilabials = seg.phonemes.filter((p) => /^[ˈˌ]?[pbm]/.test(p.ipa));
    expect(bilabials.length).toBeGreaterThanOrEqual(4);
    // the lips are shut just before each bilabial's release (its next phoneme)
    for (const p of bilabials) {
      const next = seg.phonemes[seg.phonemes.indexOf(p) + 1]!;
      expect(track.at(next.startSample - lead - ms(15)).open).toBeLessThan(CLOSED);
    }
    // continuity at 10 ms steps: a blended mouth moves at most ~0.3 of its range per 10 ms,
    // while a switch between pictures would jump up to 0.88; closures may snap faster
    let biggest = 0;
    for (let t = 0; t + 10 < (seg.pcm.length / 48_000) * 1000; t += 10) {
      const a = track.at(ms(t));
      const b = track.at(ms(t + 10));
      const nearClosure = [t - 20, t, t + 10, t + 30].some((u) => track.visemeAt(ms(u)) === Viseme.A);
      if (!nearClosure) biggest = Math.max(biggest, Math.abs(b.open - a.open), Math.abs(b.round - a.round));
    }
    expect(biggest).toBeLessThan(0.35);
  });
});
