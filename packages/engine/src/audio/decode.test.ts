import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeAudio } from './decode.js';

const fixture = (name: string): Uint8Array =>
  new Uint8Array(readFileSync(new URL(`../../test-fixtures/audio/${name}`, import.meta.url)));
const reference = fixture('speech-22k.wav');
const refSeconds = (reference.length - 44) / 2 / 22_050;

describe('decodeAudio', () => {
  it.each([
    ['speech-22k.wav', 'wav', 22_050],
    ['speech-44k-stereo.wav', 'wav', 44_100],
    ['speech-float.wav', 'wav', 22_050],
    ['speech-44k.mp3', 'mp3', 44_100],
    ['speech-22k.mp3', 'mp3', 22_050],
    ['speech-48k-stereo.mp3', 'mp3', 48_000],
  ])('%s → mono 48 kHz of the right length', async (name, format, rate) => {
    const d = await decodeAudio(fixture(name));
    expect(d.format).toBe(format);
    expect(d.sourceRateHz).toBe(rate);
    expect(Math.abs(d.durationSec - refSeconds)).toBeLessThan(format === 'mp3' ? 0.08 : 0.001);
    expect(Math.abs(d.pcm.length - d.durationSec * 48_000)).toBeLessThanOrEqual(2);
    const peak = d.pcm.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    expect(peak).toBeGreaterThan(3000);
  });

  it.each([
    ['junk.bin', /not an MP3 or WAV/],
    ['truncated.mp3', /truncated/],
    ['short.wav', /shorter than 100 ms/],
  ])('%s is rejected: %s', async (name, reason) => {
    await expect(decodeAudio(fixture(name))).rejects.toThrow(reason);
  });

  it('rejects empty files, ID3-only files and MP3-looking junk', async () => {
    await expect(decodeAudio(new Uint8Array())).rejects.toThrow(/empty/);
    const id3Only = new Uint8Array([
      0x49,
      0x44,
      0x33,
      3,
      0,
      0,
      0,
      0,
      0,
      10,
      ...new Array<number>(10).fill(0),
    ]);
    await expect(decodeAudio(id3Only)).rejects.toThrow(/not an MP3 or WAV|no MP3 audio/);
    const fakeSync = new Uint8Array(4000).map((_, i) => (i === 0 ? 0xff : i === 1 ? 0xfb : (i * 7919) & 255));
    await expect(decodeAudio(fakeSync)).rejects.toThrow(/decode errors|no MP3 audio|truncated/);
  });
});
