import { describe, expect, it } from 'vitest';
import { REST_MOUTH } from '../face-state.js';
import { MouthDriver } from './mouth-driver.js';

const open = { ...REST_MOUTH, open: 1, width: 0.5 };

describe('MouthDriver', () => {
  it('samples the centre of the audio a frame covers: half a frame ahead (20 ms = 960 samples at 25 fps)', () => {
    expect(new MouthDriver(25).aheadSamples).toBe(960);
    expect(new MouthDriver(30).aheadSamples).toBe(800);
  });

  it('shows the speech mouth while speaking, rest from the first frame without speech', () => {
    const d = new MouthDriver(25);
    expect(d.frame(open)).toEqual(open);
    expect(d.frame(undefined)).toEqual(REST_MOUTH);
    expect(d.frame(open)).toEqual(open);
  });
});
