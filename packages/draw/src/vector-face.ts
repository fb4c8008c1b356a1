/**
 * Draws a vector avatar from its manifest in a 512×512 design space: the face geometry, the head
 * and how it moves, composed from the figure (vector-figure.ts: background, body, hair) and the
 * features (vector-features.ts: eyes, brows, nose, mouth).
 */
import type { Context2D } from './canvas.js';
import type { FaceMotion, MouthParams, VectorLook } from './face.js';
import { shade, withAlpha } from './color.js';
import { drawAccessories, drawHairBack, drawHairFront } from './vector-figure.js';
import { drawBrows, drawEyes, drawMouth, drawNose } from './vector-features.js';

export { drawBackground, drawBody } from './vector-figure.js';
export { drawMouth } from './vector-features.js';
export { shade } from './color.js';

type Ctx = Context2D;

export interface FaceGeometry {
  cx: number;
  cy: number;
  hw: number;
  hl: number;
  jawW: number;
  eyeY: number;
  eyeDx: number;
  mouthY: number;
  mouthW: number;
}

export function geometry(m: VectorLook): FaceGeometry {
  const cx = 256;
  const cy = 208;
  const hw = 84 + m.face.width * 30;
  const hl = 108 + m.face.length * 24;
  return {
    cx,
    cy,
    hw,
    hl,
    jawW: hw * (0.55 + 0.3 * m.face.jaw),
    eyeY: cy - 6,
    eyeDx: hw * 0.42,
    mouthY: cy + hl * 0.6,
    mouthW: 24 + hw * 0.12,
  };
}

function headPath(ctx: Ctx, g: FaceGeometry, m: VectorLook): void {
  const { hw, hl, jawW } = g;
  const chinW = jawW * (0.25 + 0.35 * m.face.chin);
  ctx.beginPath();
  ctx.moveTo(-hw, 0);
  ctx.bezierCurveTo(-hw, -hl * 1.05, hw, -hl * 1.05, hw, 0);
  ctx.bezierCurveTo(hw, hl * 0.45, jawW, hl * 0.72, chinW, hl * 0.95);
  ctx.quadraticCurveTo(0, hl * 1.04, -chinW, hl * 0.95);
  ctx.bezierCurveTo(-jawW, hl * 0.72, -hw, hl * 0.45, -hw, 0);
  ctx.closePath();
}

export function headTransform(ctx: Ctx, g: FaceGeometry, motion: FaceMotion): void {
  ctx.translate(g.cx + motion.headX, g.cy + motion.headY);
  ctx.translate(0, g.hl);
  ctx.rotate(motion.tilt);
  ctx.translate(0, -g.hl);
}

/** The parts of the head under the features, which never change: back hair, ears, skin, beard, cheeks, nose. */
export function drawHeadUnder(ctx: Ctx, m: VectorLook, g: FaceGeometry): void {
  drawHairBack(ctx, m, g);
  ctx.fillStyle = m.skin.shadow;
  for (const s of [-1, 1]) {
    ctx.beginPath();
    ctx.ellipse(s * g.hw, g.hl * 0.05, 13, 24, 0, 0, Math.PI * 2);
    ctx.fill();
  }
  headPath(ctx, g, m);
  const skin = ctx.createRadialGradient(-g.hw * 0.25, -g.hl * 0.3, g.hw * 0.2, 0, 0, g.hl * 1.15);
  skin.addColorStop(0, shade(m.skin.tone, 0.08));
  skin.addColorStop(0.7, m.skin.tone);
  skin.addColorStop(1, m.skin.shadow);
  ctx.fillStyle = skin;
  ctx.fill();
  if (m.beard.style !== 'none') {
    ctx.save();
    headPath(ctx, g, m);
    ctx.clip();
    const a = m.beard.style === 'stubble' ? 0.3 : 0.92;
    const beard = ctx.createLinearGradient(0, g.hl * 0.35, 0, g.hl * 0.62);
    beard.addColorStop(0, withAlpha(m.beard.color, 0));
    beard.addColorStop(1, withAlpha(m.beard.color, a));
    ctx.fillStyle = beard;
    ctx.beginPath();
    ctx.moveTo(-g.hw, g.hl * 0.1);
    ctx.quadraticCurveTo(-g.hw * 0.5, g.hl * 0.5, 0, g.hl * 0.42);
    ctx.quadraticCurveTo(g.hw * 0.5, g.hl * 0.5, g.hw, g.hl * 0.1);
    ctx.lineTo(g.hw, g.hl * 1.2);
    ctx.lineTo(-g.hw, g.hl * 1.2);
    ctx.fill();
    ctx.restore();
  }
  for (const s of [-1, 1]) {
    const cheek = ctx.createRadialGradient(s * g.eyeDx, g.hl * 0.3, 2, s * g.eyeDx, g.hl * 0.3, 26);
    cheek.addColorStop(0, withAlpha(m.skin.blush, 0.35));
    cheek.addColorStop(1, withAlpha(m.skin.blush, 0));
    ctx.fillStyle = cheek;
    ctx.fillRect(s * g.eyeDx - 26, g.hl * 0.3 - 26, 52, 52);
  }
  drawNose(ctx, m, g);
}

/** What moves on the face each frame: eyes (blink, gaze), brows and mouth. */
export function drawFeatures(
  ctx: Ctx,
  m: VectorLook,
  g: FaceGeometry,
  mouth: MouthParams,
  motion: FaceMotion,
): void {
  drawEyes(ctx, m, g, motion);
  drawBrows(ctx, m, g, motion);
  drawMouth(ctx, m, g, mouth);
}

/** The parts over the features, which never change: front hair and accessories. */
export function drawHeadOver(ctx: Ctx, m: VectorLook, g: FaceGeometry): void {
  drawHairFront(ctx, m, g);
  drawAccessories(ctx, m, g);
}

/** Draws the whole head with the motion's transform, around the neck (no caching). */
export function drawHead(
  ctx: Ctx,
  m: VectorLook,
  g: FaceGeometry,
  mouth: MouthParams,
  motion: FaceMotion,
): void {
  ctx.save();
  headTransform(ctx, g, motion);
  drawHeadUnder(ctx, m, g);
  drawFeatures(ctx, m, g, mouth, motion);
  drawHeadOver(ctx, m, g);
  ctx.restore();
}
