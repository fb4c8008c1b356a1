import { describe, expect, it } from 'vitest';
import { IvfError, isVp9KeyFrame, parseIvf } from './ivf.js';

/** An IVF file as ffmpeg's muxer writes it: 32-byte header, then 12-byte frame headers. */
function ivf(frames: number[][], o: { width?: number; height?: number; fourcc?: string } = {}): Uint8Array {
  const size = 32 + frames.reduce((n, f) => n + 12 + f.length, 0);
  const out = new Uint8Array(size);
  const v = new DataView(out.buffer);
  out.set(new TextEncoder().encode('DKIF'), 0);
  v.setUint16(4, 0, true);
  v.setUint16(6, 32, true);
  out.set(new TextEncoder().encode(o.fourcc ?? 'VP90'), 8);
  v.setUint16(12, o.width ?? 212, true);
  v.setUint16(14, o.height ?? 158, true);
  v.setUint32(16, 25, true);
  v.setUint32(20, 1, true);
  v.setUint32(24, frames.length, true);
  let at = 32;
  frames.forEach((f, k) => {
    v.setUint32(at, f.length, true);
    v.setUint32(at + 4, k === 2 ? 7 : k, true);
    v.setUint32(at + 8, k === 2 ? 1 : 0, true); // a timestamp past 2³²
    out.set(f, at + 12);
    at += 12 + f.length;
  });
  return out;
}

describe('parseIvf', () => {
  it('reads the header and every frame as a view of the file', () => {
    const file = ivf([
      [0x82, 1, 2],
      [0x86, 3],
      [0x86, 4, 5, 6],
    ]);
    const parsed = parseIvf(file.buffer);
    expect(parsed).toMatchObject({ fourcc: 'VP90', width: 212, height: 158 });
    expect(parsed.frames.map((f) => [...f.data])).toEqual([
      [0x82, 1, 2],
      [0x86, 3],
      [0x86, 4, 5, 6],
    ]);
    expect(parsed.frames.map((f) => f.timestamp)).toEqual([0, 1, 2 ** 32 + 7]);
    expect(parsed.frames[1]!.data.buffer).toBe(file.buffer);
    expect(parseIvf(ivf([])).frames).toEqual([]);
  });

  it('refuses what is not IVF, a zero size, a truncated frame or frame header', () => {
    const good = ivf([
      [0x82, 1, 2],
      [0x86, 3],
    ]);
    const bad = [
      new TextEncoder().encode('RIFF0000000000000000000000000000000'),
      good.subarray(0, 20),
      good.subarray(0, good.length - 1),
      good.subarray(0, 32 + 15 + 5),
      ivf([[0x82]], { width: 0 }),
      ivf([[0x82], []]),
    ];
    for (const b of bad) expect(() => parseIvf(b)).toThrow(IvfError);
  });
});

describe('isVp9KeyFrame', () => {
  it('reads frame_type after the marker, the profile and show_existing_frame', () => {
    expect(isVp9KeyFrame(new Uint8Array([0x82]))).toBe(true); // profile 0 key frame (libvpx)
    expect(isVp9KeyFrame(new Uint8Array([0x86]))).toBe(false); // profile 0 inter frame
    expect(isVp9KeyFrame(new Uint8Array([0x88]))).toBe(false); // show an existing frame
    expect(isVp9KeyFrame(new Uint8Array([0xa2]))).toBe(true); // profile 1 key frame
    expect(isVp9KeyFrame(new Uint8Array([0xb0]))).toBe(true); // profile 3: a reserved bit, then key
    expect(isVp9KeyFrame(new Uint8Array([0xb2]))).toBe(false); // profile 3 inter frame
    expect(isVp9KeyFrame(new Uint8Array([0x02]))).toBe(false); // no frame marker
    expect(isVp9KeyFrame(new Uint8Array([]))).toBe(false);
  });
});
