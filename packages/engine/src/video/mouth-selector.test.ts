import { describe, expect, it } from 'vitest';
import { RING, UNDER_NOSE } from '@mouthpiece/draw';
import { REST_MOUTH, type MouthParams } from '../face-state.js';
import type { MouthDescriptor } from './pack.js';
import { BLEND_SPAN, JUMP_COST, MouthSelector } from './mouth-selector.js';

const d = (open: number, width = 0.4, round = 0, teeth = 0): MouthDescriptor => ({
  open,
  width,
  round,
  teeth,
});
const want = (m: Partial<MouthParams>): MouthParams => ({ ...REST_MOUTH, width: 0.4, ...m });

describe('MouthSelector', () => {
  it('picks the nearest crop, the opening counting more than width, rounding or teeth', () => {
    // crop 0 is as far off in one other parameter as crop 1 is in the opening
    for (const other of [d(0.6, 0.7), d(0.6, 0.4, 0.3), d(0.6, 0.4, 0, 0.3)]) {
      const s = new MouthSelector([other, d(0.3)], [0, 100]);
      expect(s.select(want({ open: 0.6 })).a).toBe(0);
      s.reset();
      expect(s.select(want({ open: 0.3 })).a).toBe(1);
    }
  });

  it('prefers the next consecutive source frame over a slightly nearer distant one, and jumps to a much nearer one', () => {
    const lib = [d(0.5), d(0.6), d(0.62), d(0.95)];
    const source = [10, 11, 50, 80];
    const s = new MouthSelector(lib, source);
    expect(s.select(want({ open: 0.5 })).a).toBe(0);
    expect(s.select(want({ open: 0.62 })).a).toBe(1); // source 11 follows 10: free
    // with no previous pick the nearest wins
    const fresh = new MouthSelector(lib, source);
    expect(fresh.select(want({ open: 0.62 })).a).toBe(2);
    // far from anything consecutive, the distance outweighs the jump
    expect(s.select(want({ open: 0.95 })).a).toBe(3);
    expect(JUMP_COST).toBeLessThan(0.33);
  });

  it('after reset() the next pick jumps for free', () => {
    const s = new MouthSelector([d(0.5), d(0.6), d(0.62)], [10, 11, 50]);
    s.select(want({ open: 0.5 }));
    s.reset();
    expect(s.select(want({ open: 0.62 })).a).toBe(2);
  });

  it('cross-fades the two cheapest, each weighted by the other one’s cost; an exact match is shown alone', () => {
    const s = new MouthSelector([d(0.2), d(0.4), d(0.9)], [0, 2, 200]);
    const p = s.select(want({ open: 0.25 }));
    expect([p.a, p.b]).toEqual([0, 1]);
    expect(p.wa).toBeCloseTo(0.15 / 0.2, 5);
    expect(p.wb).toBeCloseTo(0.05 / 0.2, 5);
    s.reset();
    expect(s.select(want({ open: 0.9 }))).toEqual({ a: 2, wa: 1, b: 2, wb: 0 });
  });

  it('plays a held sound on through the recorded frames that follow instead of freezing on one crop', () => {
    // source frames 0..5 open 0.86–0.9: a held wide vowel walks through them
    const lib = [0.88, 0.9, 0.87, 0.86, 0.89, 0.2].map((o) => d(o));
    const s = new MouthSelector(lib, [0, 1, 2, 3, 4, 5]);
    const shown = Array.from({ length: 5 }, () => s.select(want({ open: 0.88 })).a);
    expect(shown).toEqual([0, 1, 2, 3, 4]);
    // and a frame far from the wanted mouth is not taken for the sake of moving on
    expect(s.select(want({ open: 0.88 })).a).not.toBe(5);
  });

  it('avoids a crop blurred by motion in its source frame (sharpness well under the library median)', () => {
    const lib = [d(0.5), d(0.5), d(0.52)];
    const s = new MouthSelector(lib, [0, 100, 200], [], 0, { sharpness: [2, 10, 10] });
    expect(s.select(want({ open: 0.5 })).a).toBe(1);
    const plain = new MouthSelector(lib, [0, 100, 200]);
    expect(plain.select(want({ open: 0.5 })).a).toBe(0);
  });

  it('never blends crops from different moments (two lip lines): only source frames BLEND_SPAN apart', () => {
    const s = new MouthSelector([d(0.2), d(0.4), d(0.9)], [0, 2 + BLEND_SPAN, 200]);
    expect(s.select(want({ open: 0.25 }))).toEqual({ a: 0, wa: 1, b: 0, wb: 0 });
  });

  it('prefers a crop filmed in the base frame’s head pose, and avoids crops whose face was covered', () => {
    const lib = [d(0.5), d(0.5)];
    const turned = new MouthSelector(lib, [0, 100], [], 0, {
      pose: [
        [0.3, 1],
        [0, 1],
      ],
    });
    expect(turned.select(want({ open: 0.5 }), undefined, [0, 1]).a).toBe(1);
    turned.reset();
    expect(turned.select(want({ open: 0.5 }), undefined, [0.3, 1]).a).toBe(0);
    const covered = new MouthSelector(lib, [0, 100], [], 0, {
      clear: [
        [1, 1, 1],
        [1, 0.2, 0],
      ],
    });
    expect(covered.select(want({ open: 0.5 })).a).toBe(0);
  });

  it('never picks a crop whose upper lip reaches the line under the nose (the composite would cut it), unless all do', () => {
    const clearRing = Array<number>(RING).fill(1);
    const lipUp = clearRing.map((v, k) => (k >= UNDER_NOSE.from && k <= UNDER_NOSE.to ? 0 : v));
    const lib = [d(0.9), d(0.6)];
    const s = new MouthSelector(lib, [0, 100], [], 0, { clear: [lipUp, clearRing] });
    expect(s.select(want({ open: 0.9 })).a).toBe(1);
    const all = new MouthSelector(lib, [0, 100], [], 0, { clear: [lipUp, lipUp] });
    expect(all.select(want({ open: 0.9 })).a).toBe(0);
  });

  it('with a sound near the recorded ones, picks the crop that sounded like it over the nearer opening', () => {
    // crops 0 and 1 open alike; crop 1 was recorded saying this sound, crop 0 another one
    const lib = [d(0.5), d(0.42)];
    const sounds = [
      [0.9, 0.1, 0.1],
      [0.1, 0.9, 0.1],
    ];
    const s = new MouthSelector(lib, [0, 100], sounds, 0.2);
    expect(s.select(want({ open: 0.5 }), [0.12, 0.88, 0.1]).a).toBe(1);
    // without the sound, or with the pack's sounds missing, the opening decides
    s.reset();
    expect(s.select(want({ open: 0.5 })).a).toBe(0);
    expect(new MouthSelector(lib, [0, 100]).select(want({ open: 0.5 }), [0.12, 0.88, 0.1]).a).toBe(0);
  });

  it('ignores a sound far from every recorded one (another voice): the opening decides', () => {
    const lib = [d(0.5), d(0.42)];
    const sounds = [
      [0.9, 0.1, 0.1],
      [0.1, 0.9, 0.1],
    ];
    const s = new MouthSelector(lib, [0, 100], sounds, 0.05);
    // nearest recorded sound is ≈ 0.8 away, sixteen spreads: no trust
    expect(s.select(want({ open: 0.5 }), [0.1, 0.9, 0.9]).a).toBe(0);
  });

  it('refuses an empty library and mismatched lists', () => {
    expect(() => new MouthSelector([], [])).toThrow(/empty/);
    expect(() => new MouthSelector([d(0)], [1, 2])).toThrow(/source/);
  });
});
