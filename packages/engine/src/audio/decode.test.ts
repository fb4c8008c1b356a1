import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { decodeAudio } from './decode.js';
import { id3Size } from './mp3.js';
import { mp3DurationSec, mp3FrameAt } from './mp3-frames.js';

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

it('a damaged MP3 is a 400-worthy error and prints nothing (bad uploads cannot fill the log)', async () => {
  const good = fixture('speech-22k.mp3');
  const damaged = new Uint8Array(good);
  for (let i = 2000; i < 4000; i++) damaged[i] = (i * 7) & 255;
  const printed = vi.spyOn(console, 'error');
  try {
    await expect(decodeAudio(damaged)).rejects.toThrow(/decode errors/);
    expect(printed).not.toHaveBeenCalled();
  } finally {
    printed.mockRestore();
  }
});

describe('decoded-length cap (5 min per upload)', () => {
  /** The MP3 frames of a fixture (after its ID3 tag), repeated until the stream lasts `seconds`. */
  function longMp3(name: string, seconds: number): Uint8Array {
    const src = fixture(name);
    const frames: Uint8Array[] = [];
    let perPass = 0;
    for (let at = id3Size(src); at < src.length;) {
      const f = mp3FrameAt(src, at);
      if (!f) break;
      frames.push(src.subarray(at, at + f.bytes));
      perPass += f.samples / f.sampleRateHz;
      at += f.bytes;
    }
    const passes = Math.ceil(seconds / perPass);
    const size = frames.reduce((n, f) => n + f.length, 0);
    const out = new Uint8Array(size * passes);
    for (let p = 0, at = 0; p < passes; p++) for (const f of frames) out.set(f, (at += f.length) - f.length);
    return out;
  }

  function wav8k(seconds: number): Uint8Array {
    const n = Math.round(seconds * 8000);
    const b = new Uint8Array(44 + n).fill(128);
    const v = new DataView(b.buffer);
    b.set(
      [...'RIFF'].map((c) => c.charCodeAt(0)),
      0,
    );
    v.setUint32(4, 36 + n, true);
    b.set(
      [...'WAVEfmt '].map((c) => c.charCodeAt(0)),
      8,
    );
    v.setUint32(16, 16, true);
    v.setUint16(20, 1, true);
    v.setUint16(22, 1, true);
    v.setUint32(24, 8000, true);
    v.setUint32(28, 8000, true);
    v.setUint16(32, 1, true);
    v.setUint16(34, 8, true);
    b.set(
      [...'data'].map((c) => c.charCodeAt(0)),
      36,
    );
    v.setUint32(40, n, true);
    return b;
  }

  it.each(['speech-22k.mp3', 'speech-44k.mp3', 'speech-48k-stereo.mp3'])(
    'the frame walk of %s gives its decoded length',
    async (name) => {
      const bytes = fixture(name);
      const decoded = await decodeAudio(bytes);
      expect(Math.abs(mp3DurationSec(bytes, id3Size(bytes)) - decoded.durationSec)).toBeLessThan(0.1);
    },
  );

  it('refuses an MP3 over 5 minutes from its frame headers, naming the limit', async () => {
    const bytes = longMp3('speech-22k.mp3', 320);
    expect(mp3DurationSec(bytes)).toBeGreaterThan(300);
    await expect(decodeAudio(bytes)).rejects.toThrow(/is 5 min \d+ s long; at most 5 min per upload/);
  });

  it('refuses a WAV over 5 minutes and accepts one just under', async () => {
    await expect(decodeAudio(wav8k(301))).rejects.toThrow(/at most 5 min per upload/);
    const ok = await decodeAudio(wav8k(299));
    expect(ok.durationSec).toBeCloseTo(299, 3);
  });
});
