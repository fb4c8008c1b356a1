/**
 * The animation stream (docs/design.md §13.3): for a viewer that draws the avatar itself (its WHEP
 * offer has no video m-line), the engine sends, once per video frame, the face state its renderer
 * would have drawn, as one binary message on the viewer's `frames` data channel, or on `events` for
 * a viewer that opened no `frames` channel (data-channel.ts; JSON messages are text, every binary
 * message is an animation frame).
 *
 * Layout, little-endian (ANIMATION_FRAME_BYTES, +9 for a video avatar's pick):
 *
 *   0  u8   version (ANIMATION_VERSION)      12 u8  blink        ×255
 *   1  u8   kind: 0 face, 1 face + video pick 13 u8  breath       ×255
 *   2  u32  audio sample index (48 kHz, the  14 u8  brow         ×255
 *           sample the state belongs to;     15 i8  gazeX        ×127
 *           modulo 2^32)                     16 i8  gazeY        ×127
 *   6  u8×6 mouth: open, width, round,       17 u8  flags: bit 0 speaking
 *           teeth, lipBite, tongue ×255      18 i16 headX        ×256 (px at 512²)
 *                                            20 i16 headY        ×256
 *                                            22 i16 tilt         ×10000 (rad)
 *   video pick (kind 1): 24 u16 base frame · 26 u16 crop a · 28 u16 crop b · 30 u8 wa ×255 ·
 *   31 u8 wb ×255 · 32 u8 fade ×255 (how much of the mouth composite shows; 0 = the base frame alone)
 *
 * A reader ignores (decodes as undefined) a message of another version or an unknown kind, so a
 * newer engine never breaks an older SDK; it never throws.
 *
 * Timing (StreamTiming): the engine announces in its `hello` (data-channel.ts) the stamps' clock,
 * its frame interval and the Opus packet length of this viewer's audio; a frame is placed in time
 * from those (animationSendLeadMs), never from constants restated on the far side.
 */
import type { FaceMotion, MouthParams, VideoPick } from './face.js';

export const ANIMATION_VERSION = 1;
/** Bytes of a face frame; a video avatar's frame adds ANIMATION_PICK_BYTES. */
export const ANIMATION_FRAME_BYTES = 24;
export const ANIMATION_PICK_BYTES = 9;

export const AnimationKind = { face: 0, video: 1 } as const;
export type AnimationKind = (typeof AnimationKind)[keyof typeof AnimationKind];

export interface AnimationFrame {
  /** The engine's audio sample index (48 kHz) this state belongs to, modulo 2^32. */
  sampleIndex: number;
  speaking: boolean;
  mouth: MouthParams;
  motion: FaceMotion;
  video?: VideoPick;
}

/** The stamps' clock: a frame is stamped with the engine's audio sample index at 48 kHz. */
export const ANIMATION_STAMP_RATE_HZ = 48_000;

/**
 * How the engine times the animation stream to this viewer, as its `hello` announces it.
 * A frame's stamp is the centre of its frame: half a frame past the audio handed to the network
 * on the frame's tick.
 */
export interface StreamTiming {
  /** The stamps' clock (ANIMATION_STAMP_RATE_HZ). */
  stampRateHz: number;
  /** One video frame (1000 / the engine's MOUTHPIECE_VIDEO_FPS). */
  frameMs: number;
  /** The length of the Opus packets of this viewer's audio. */
  audioPacketMs: number;
}

/**
 * What an engine whose `hello` announces no timing sends (protocol 1 before the fields: 25 fps,
 * and 40 ms Opus packets to a viewer that draws the avatar itself).
 */
export const DEFAULT_STREAM_TIMING: Readonly<StreamTiming> = Object.freeze({
  stampRateHz: ANIMATION_STAMP_RATE_HZ,
  frameMs: 40,
  audioPacketMs: 40,
});

/**
 * From a frame's arrival (on a path without queueing delay) to its stamped sample leaving the
 * server in an Opus packet, on average: half a frame (the stamp is the frame's centre, ahead of the
 * audio sent with the frame) plus half a packet (a sample leaves once its packet is complete). The
 * receiver adds its jitter buffer's delay and the output device's latency.
 */
export function animationSendLeadMs(t: StreamTiming): number {
  return t.frameMs / 2 + t.audioPacketMs / 2;
}

const MOUTH_KEYS = ['open', 'width', 'round', 'teeth', 'lipBite', 'tongue'] as const;

const unit = (v: number): number => Math.round(clamp(v, 0, 1) * 255);
const signed8 = (v: number): number => Math.round(clamp(v, -1, 1) * 127);
const signed16 = (v: number, scale: number): number => Math.round(clamp(v * scale, -32768, 32767));
const u16 = (v: number): number => Math.round(clamp(v, 0, 65535));

function clamp(v: number, lo: number, hi: number): number {
  return Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : 0;
}

/** One frame as its binary message (values out of range are clamped, NaN sent as 0). */
export function encodeAnimationFrame(f: AnimationFrame): Uint8Array {
  const bytes = new Uint8Array(ANIMATION_FRAME_BYTES + (f.video ? ANIMATION_PICK_BYTES : 0));
  const v = new DataView(bytes.buffer);
  v.setUint8(0, ANIMATION_VERSION);
  v.setUint8(1, f.video ? AnimationKind.video : AnimationKind.face);
  v.setUint32(2, f.sampleIndex >>> 0, true);
  MOUTH_KEYS.forEach((k, i) => v.setUint8(6 + i, unit(f.mouth[k])));
  const m = f.motion;
  v.setUint8(12, unit(m.blink));
  v.setUint8(13, unit(m.breath));
  v.setUint8(14, unit(m.brow));
  v.setInt8(15, signed8(m.gazeX));
  v.setInt8(16, signed8(m.gazeY));
  v.setUint8(17, f.speaking ? 1 : 0);
  v.setInt16(18, signed16(m.headX, 256), true);
  v.setInt16(20, signed16(m.headY, 256), true);
  v.setInt16(22, signed16(m.tilt, 10000), true);
  if (f.video) {
    const p = f.video;
    v.setUint16(24, u16(p.baseFrame), true);
    v.setUint16(26, u16(p.a), true);
    v.setUint16(28, u16(p.b), true);
    v.setUint8(30, unit(p.wa));
    v.setUint8(31, unit(p.wb));
    v.setUint8(32, unit(p.fade));
  }
  return bytes;
}

/**
 * A binary data-channel message as an animation frame; undefined for anything else (another
 * version, an unknown kind, too short, not binary): the caller ignores it.
 */
export function decodeAnimationFrame(data: unknown): AnimationFrame | undefined {
  const v = viewOf(data);
  if (!v || v.byteLength < 2 || v.getUint8(0) !== ANIMATION_VERSION) return undefined;
  const kind = v.getUint8(1);
  if (kind !== AnimationKind.face && kind !== AnimationKind.video) return undefined;
  const length = ANIMATION_FRAME_BYTES + (kind === AnimationKind.video ? ANIMATION_PICK_BYTES : 0);
  if (v.byteLength < length) return undefined;
  const u = (at: number): number => v.getUint8(at) / 255;
  const frame: AnimationFrame = {
    sampleIndex: v.getUint32(2, true),
    speaking: (v.getUint8(17) & 1) === 1,
    mouth: { open: u(6), width: u(7), round: u(8), teeth: u(9), lipBite: u(10), tongue: u(11) },
    motion: {
      blink: u(12),
      breath: u(13),
      brow: u(14),
      gazeX: v.getInt8(15) / 127,
      gazeY: v.getInt8(16) / 127,
      headX: v.getInt16(18, true) / 256,
      headY: v.getInt16(20, true) / 256,
      tilt: v.getInt16(22, true) / 10000,
    },
  };
  if (kind === AnimationKind.video)
    frame.video = {
      baseFrame: v.getUint16(24, true),
      a: v.getUint16(26, true),
      b: v.getUint16(28, true),
      wa: u(30),
      wb: u(31),
      fade: u(32),
    };
  return frame;
}

function viewOf(data: unknown): DataView | undefined {
  // instanceof fails across realms (a test runner's, a worker's): the tag says it
  if (data instanceof ArrayBuffer || Object.prototype.toString.call(data) === '[object ArrayBuffer]')
    return new DataView(data as ArrayBuffer);
  if (ArrayBuffer.isView(data)) return new DataView(data.buffer, data.byteOffset, data.byteLength);
  return undefined;
}
