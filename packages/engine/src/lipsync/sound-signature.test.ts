import { describe, expect, it } from 'vitest';
import { BAND_COUNT } from './audio-features.js';
import { analyzeAudioMouth } from './audio-mouth.js';
import {
  normalisedBands,
  SIGNATURE_LENGTH,
  signatureAt,
  signatureDistance,
  signatureSpread,
} from './sound-signature.js';

/** A tone of `hz` for `ms`, then as long a silence, at 48 kHz. */
function tones(list: Array<[number, number]>): Int16Array {
  const parts: number[] = [];
  for (const [hz, ms] of list) {
    const n = (ms * 48_000) / 1000;
    for (let i = 0; i < n; i++) parts.push(Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / 48_000)));
    for (let i = 0; i < n; i++) parts.push(0);
  }
  return Int16Array.from(parts);
}

describe('sound signatures', () => {
  it('are near for the same sound and far for another, whatever the loudness', () => {
    const pcm = tones([
      [250, 200],
      [3000, 200],
      [250, 200],
    ]);
    const { frames, norm } = normalisedBands(pcm);
    const hop = (ms: number): number => Math.round(ms / 10);
    const low1 = signatureAt(norm, frames, hop(100));
    const high = signatureAt(norm, frames, hop(500));
    const low2 = signatureAt(norm, frames, hop(900));
    expect(low1).toHaveLength(SIGNATURE_LENGTH);
    expect(SIGNATURE_LENGTH).toBe(3 * BAND_COUNT);
    expect(signatureDistance(low1, low2)).toBeLessThan(0.05 * signatureDistance(low1, high));
  });

  it('the spread is the typical distance between a sound and its nearest other one', () => {
    const a = [1, 0, 0];
    const b = [0, 1, 0];
    // two copies of each sound, far apart in time: each one's nearest other is its copy (0 away)
    expect(signatureSpread([a, b, a, b, a, b, a, b], 1)).toBe(0);
    expect(signatureSpread([a, b], 0)).toBeCloseTo(Math.SQRT2, 6);
    // silence does not count
    expect(
      signatureSpread(
        [
          [0, 0, 0],
          [0.1, 0, 0],
        ],
        0,
      ),
    ).toBe(0);
  });

  it('an audio-only mouth track answers each sample with its sound', () => {
    const pcm = tones([
      [250, 300],
      [3000, 300],
    ]);
    const track = analyzeAudioMouth(pcm);
    const at = (ms: number): Float32Array => track.soundAt!((ms * 48_000) / 1000);
    expect(signatureDistance(at(100), at(150))).toBeLessThan(signatureDistance(at(100), at(700)));
  });
});
