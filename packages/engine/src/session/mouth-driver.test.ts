import { describe, expect, it } from 'vitest';
import { REST_MOUTH } from '../face-state.js';
import { EASE_MS, MouthDriver } from './mouth-driver.js';

const open = { ...REST_MOUTH, open: 1, width: 0.5 };

describe('MouthDriver', () => {
  it('samples the centre of the audio a frame covers: half a frame ahead (20 ms = 960 samples at 25 fps)', () => {
    expect(new MouthDriver(25).aheadSamples).toBe(960);
    expect(new MouthDriver(30).aheadSamples).toBe(800);
  });

  it('shows the speech mouth while speaking, rest in silence', () => {
    const d = new MouthDriver(25);
    expect(d.frame(open, 0)).toEqual(open);
    expect(d.frame(undefined, 40)).toEqual(REST_MOUTH);
  });

  it('after an interrupt eases from the last mouth to rest over EASE_MS instead of snapping', () => {
    const d = new MouthDriver(25);
    d.frame(open, 0);
    d.interrupted(40);
    const half = d.frame(undefined, 40 + EASE_MS / 2);
    expect(half.open).toBeGreaterThan(0.2);
    expect(half.open).toBeLessThan(0.8);
    expect(d.frame(undefined, 40 + EASE_MS).open).toBe(REST_MOUTH.open);
    expect(d.frame(undefined, 40 + 2 * EASE_MS)).toEqual(REST_MOUTH);
  });
});
