import { describe, expect, it } from 'vitest';
import {
  ANIMATION_FRAME_BYTES,
  ANIMATION_PICK_BYTES,
  ANIMATION_VERSION,
  decodeAnimationFrame,
  encodeAnimationFrame,
  type AnimationFrame,
} from './animation.js';
import { parseServerMessage } from './data-channel.js';

const face: AnimationFrame = {
  sampleIndex: 4_123_456_789,
  speaking: true,
  mouth: { open: 0.62, width: 0.35, round: 0.1, teeth: 0.4, lipBite: 0, tongue: 0.05 },
  motion: {
    blink: 0.8,
    headX: -4.7,
    headY: 2.31,
    tilt: -0.0312,
    breath: 0.5,
    brow: 0.2,
    gazeX: -0.3,
    gazeY: 0.15,
  },
};

/** Each value back within its quantisation step. */
function expectNear(got: AnimationFrame, want: AnimationFrame): void {
  expect(got.sampleIndex).toBe(want.sampleIndex);
  expect(got.speaking).toBe(want.speaking);
  for (const [k, v] of Object.entries(want.mouth))
    expect(got.mouth[k as keyof AnimationFrame['mouth']]).toBeCloseTo(v, 2);
  const m = got.motion;
  for (const k of ['blink', 'breath', 'brow'] as const) expect(m[k]).toBeCloseTo(want.motion[k], 2);
  for (const k of ['gazeX', 'gazeY'] as const) expect(Math.abs(m[k] - want.motion[k])).toBeLessThan(0.005);
  expect(Math.abs(m.headX - want.motion.headX)).toBeLessThan(0.003);
  expect(Math.abs(m.headY - want.motion.headY)).toBeLessThan(0.003);
  expect(Math.abs(m.tilt - want.motion.tilt)).toBeLessThan(0.0001);
}

describe('animation frames', () => {
  it('round-trip a face frame in 24 bytes', () => {
    const bytes = encodeAnimationFrame(face);
    expect(bytes.byteLength).toBe(ANIMATION_FRAME_BYTES);
    expect(ANIMATION_FRAME_BYTES).toBe(24);
    expect(bytes[0]).toBe(ANIMATION_VERSION);
    const got = decodeAnimationFrame(bytes)!;
    expectNear(got, face);
    expect(got.video).toBeUndefined();
  });

  it("round-trip a video avatar's pick in 33 bytes", () => {
    const frame: AnimationFrame = {
      ...face,
      speaking: false,
      video: { baseFrame: 143, a: 1201, b: 77, wa: 0.7, wb: 0.3, fade: 2 / 3 },
    };
    const bytes = encodeAnimationFrame(frame);
    expect(bytes.byteLength).toBe(ANIMATION_FRAME_BYTES + ANIMATION_PICK_BYTES);
    expect(bytes.byteLength).toBe(33);
    const got = decodeAnimationFrame(bytes.buffer)!; // an ArrayBuffer, as a browser's channel gives it
    expectNear(got, frame);
    expect(got.video).toMatchObject({ baseFrame: 143, a: 1201, b: 77 });
    expect(got.video!.wa).toBeCloseTo(0.7, 2);
    expect(got.video!.wb).toBeCloseTo(0.3, 2);
    expect(got.video!.fade).toBeCloseTo(2 / 3, 2);
  });

  it('clamp values out of range and send NaN as 0', () => {
    const got = decodeAnimationFrame(
      encodeAnimationFrame({
        ...face,
        sampleIndex: 2 ** 32 + 5, // modulo 2^32
        mouth: { ...face.mouth, open: 1.7, width: -1, round: Number.NaN },
        motion: { ...face.motion, headX: 1e6, gazeX: -4 },
      }),
    )!;
    expect(got.sampleIndex).toBe(5);
    expect(got.mouth.open).toBe(1);
    expect(got.mouth.width).toBe(0);
    expect(got.mouth.round).toBe(0);
    expect(got.motion.headX).toBeCloseTo(32767 / 256, 5);
    expect(got.motion.gazeX).toBe(-1);
  });

  it('ignore another version, an unknown kind, a short message and text', () => {
    const bytes = encodeAnimationFrame(face);
    const newer = bytes.slice();
    newer[0] = ANIMATION_VERSION + 1;
    expect(decodeAnimationFrame(newer)).toBeUndefined();
    const kind = bytes.slice();
    kind[1] = 9;
    expect(decodeAnimationFrame(kind)).toBeUndefined();
    expect(decodeAnimationFrame(bytes.subarray(0, 20))).toBeUndefined();
    expect(decodeAnimationFrame(new Uint8Array(0))).toBeUndefined();
    expect(decodeAnimationFrame('{"type":"hello"}')).toBeUndefined();
    expect(decodeAnimationFrame(undefined)).toBeUndefined();
  });

  it('read from a view inside a larger buffer (a Node Buffer)', () => {
    const bytes = encodeAnimationFrame(face);
    const big = new Uint8Array(100);
    big.set(bytes, 40);
    expectNear(decodeAnimationFrame(big.subarray(40, 40 + bytes.length))!, face);
  });

  it('are not JSON messages: the JSON reader ignores them', () => {
    const bytes = encodeAnimationFrame(face);
    expect(parseServerMessage(bytes)).toBeUndefined();
    expect(parseServerMessage(bytes.buffer)).toBeUndefined();
  });
});
