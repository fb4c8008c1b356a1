/**
 * The back of a head, for test clips whose face turns away (talking-clip.ts, `awayStyle: 'back'`):
 * on the avatar frame's backdrop, shoulders, a neck and a hair-coloured oval where the head was,
 * the colours taken from the rendered face. A head-like shape with no face in it.
 */
import { createCanvas } from '@napi-rs/canvas';

type Point = readonly [number, number];

/** The mean colour of a box of an RGBA picture, as `rgb(…)`. */
function colourAt(px: Uint8Array | Uint8ClampedArray, side: number, x: number, y: number, r: number): string {
  const sum = [0, 0, 0];
  let n = 0;
  for (let yy = Math.max(0, Math.round(y - r)); yy <= Math.min(side - 1, Math.round(y + r)); yy++)
    for (let xx = Math.max(0, Math.round(x - r)); xx <= Math.min(side - 1, Math.round(x + r)); xx++) {
      const o = (yy * side + xx) * 4;
      for (let c = 0; c < 3; c++) sum[c]! += px[o + c]!;
      n++;
    }
  return `rgb(${sum.map((v) => Math.round(v / Math.max(1, n))).join(',')})`;
}

/**
 * The back of the head as RGBA words, `side`×`side`, from a rendered frame of the face (`face`)
 * and its 68 landmarks in that frame's pixels.
 */
export function backOfHead(
  face: Uint8Array | Uint8ClampedArray,
  side: number,
  lm: readonly Point[],
): Uint32Array {
  const L = (i: number): Point => lm[i]!;
  const faceW = Math.hypot(L(16)[0] - L(0)[0], L(16)[1] - L(0)[1]);
  const cx = (L(0)[0] + L(16)[0]) / 2;
  const browY = Math.min(L(19)[1], L(24)[1]);
  const backdrop = colourAt(face, side, side * 0.06, side * 0.06, side * 0.03);
  const hair = colourAt(face, side, L(27)[0], browY - 0.45 * faceW, faceW * 0.04);
  const skin = colourAt(face, side, (L(3)[0] + L(48)[0]) / 2, (L(3)[1] + L(48)[1]) / 2, faceW * 0.03);
  const clothes = colourAt(face, side, cx - faceW * 0.9, side - side * 0.03, side * 0.02);
  const canvas = createCanvas(side, side);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = backdrop;
  ctx.fillRect(0, 0, side, side);
  // shoulders and neck
  ctx.fillStyle = clothes;
  ctx.beginPath();
  ctx.ellipse(cx, side + faceW * 0.25, faceW * 1.3, faceW * 0.75, 0, 0, Math.PI * 2);
  ctx.fill();
  ctx.fillStyle = skin;
  ctx.fillRect(cx - faceW * 0.24, L(8)[1] - faceW * 0.3, faceW * 0.48, faceW * 0.6);
  // the head: hair all over, darker at its rim
  const headY = (browY + L(8)[1]) / 2 - faceW * 0.18;
  const g = ctx.createRadialGradient(cx, headY - faceW * 0.15, faceW * 0.1, cx, headY, faceW * 0.8);
  g.addColorStop(0, hair);
  g.addColorStop(1, 'rgba(40,28,16,1)');
  ctx.fillStyle = g;
  ctx.beginPath();
  ctx.ellipse(cx, headY, faceW * 0.6, faceW * 0.78, 0, 0, Math.PI * 2);
  ctx.fill();
  const px = ctx.getImageData(0, 0, side, side).data;
  return new Uint32Array(px.buffer.slice(px.byteOffset, px.byteOffset + px.byteLength));
}

/** a·(1 − f) + b·f per channel, RGBA words (opaque). */
export function mixWords(a: Uint32Array, b: Uint32Array, f: number, out: Uint32Array): Uint32Array {
  const k = Math.round(f * 256);
  for (let i = 0; i < out.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    const r = ((x & 255) * (256 - k) + (y & 255) * k) >> 8;
    const g = (((x >>> 8) & 255) * (256 - k) + ((y >>> 8) & 255) * k) >> 8;
    const bl = (((x >>> 16) & 255) * (256 - k) + ((y >>> 16) & 255) * k) >> 8;
    out[i] = (r | (g << 8) | (bl << 16) | (255 << 24)) >>> 0;
  }
  return out;
}
