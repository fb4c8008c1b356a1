/**
 * The moving parts of the vector face: eyes with blink and gaze, brows, nose, and a mouth built
 * from continuous MouthParams (lips, inner mouth, teeth, tongue, lip-bite), so neighbouring visemes
 * blend smoothly.
 */
import type { Context2D } from './canvas.js';
import type { FaceMotion, MouthParams, VectorLook } from './face.js';
import { shade } from './color.js';
import type { FaceGeometry } from './vector-face.js';

type Ctx = Context2D;

export function drawEyes(ctx: Ctx, m: VectorLook, g: FaceGeometry, motion: FaceMotion): void {
  const ey = g.eyeY - g.cy;
  const rx = 13 + m.eyes.size * 6;
  const ry = (m.eyes.shape === 'almond' ? 6.5 : 9) + m.eyes.size * 3;
  for (const s of [-1, 1]) {
    const ex = s * g.eyeDx;
    ctx.save();
    ctx.beginPath();
    ctx.ellipse(ex, ey, rx, ry, 0, 0, Math.PI * 2);
    ctx.fillStyle = '#fbfbf8';
    ctx.fill();
    ctx.clip();
    const ix = ex + motion.gazeX * rx * 0.35;
    const iy = ey + motion.gazeY * ry * 0.3;
    ctx.fillStyle = m.eyes.iris;
    ctx.beginPath();
    ctx.arc(ix, iy, ry * 0.95 + 1.5, 0, Math.PI * 2);
    ctx.fill();
    ctx.fillStyle = '#0b0b0d';
    ctx.beginPath();
    ctx.arc(ix, iy, ry * 0.45, 0, Math.PI * 2);
    ctx.fill();
    ctx.fillStyle = 'rgba(255,255,255,0.85)';
    ctx.beginPath();
    ctx.arc(ix + 3, iy - 3, 2.4, 0, Math.PI * 2);
    ctx.fill();
    // eyelid: closes from the top with the blink
    const lid = ry * 2.2 * motion.blink;
    if (lid > 0.5) {
      ctx.fillStyle = m.skin.tone;
      ctx.fillRect(ex - rx - 2, ey - ry - 2, rx * 2 + 4, lid + 2);
    }
    ctx.restore();
    ctx.strokeStyle = shade(m.skin.shadow, -0.45);
    ctx.lineWidth = 2.6;
    ctx.beginPath();
    const lidY = ey - ry + ry * 2 * motion.blink;
    ctx.moveTo(ex - rx - 1, ey - 1);
    ctx.quadraticCurveTo(ex, lidY - ry * (1 - motion.blink) * 0.9, ex + rx + 1, ey - 1);
    ctx.stroke();
  }
}

export function drawBrows(ctx: Ctx, m: VectorLook, g: FaceGeometry, motion: FaceMotion): void {
  const y = g.eyeY - g.cy - 22 - motion.brow * 6;
  ctx.strokeStyle = m.brows.color;
  ctx.lineCap = 'round';
  ctx.lineWidth = 3.5 + m.brows.thickness * 4;
  for (const s of [-1, 1]) {
    ctx.beginPath();
    ctx.moveTo(s * (g.eyeDx - 17), y + 3);
    ctx.quadraticCurveTo(s * g.eyeDx, y - 5, s * (g.eyeDx + 19), y + 2);
    ctx.stroke();
  }
}

export function drawNose(ctx: Ctx, m: VectorLook, g: FaceGeometry): void {
  const y = g.hl * 0.3;
  const w = 9 + m.nose.width * 8;
  ctx.strokeStyle = m.skin.shadow;
  ctx.lineWidth = 2.5;
  ctx.lineCap = 'round';
  ctx.beginPath();
  ctx.moveTo(-w, y);
  ctx.quadraticCurveTo(0, y + 7, w, y);
  ctx.stroke();
  ctx.beginPath();
  ctx.moveTo(-3, g.eyeY - g.cy + 12);
  ctx.quadraticCurveTo(-6, y - 12, -w * 0.6, y - 3);
  ctx.stroke();
}

export function drawMouth(ctx: Ctx, m: VectorLook, g: FaceGeometry, p: MouthParams): void {
  const y = g.mouthY - g.cy;
  const halfW = g.mouthW * (0.62 + 0.6 * p.width) * (1 - 0.38 * p.round);
  const open = 1.5 + p.open * 30 * (1 - 0.15 * p.round) + p.round * 5;
  const lip = 3.5 + m.lips.thickness * 5;
  const upperY = y - open * 0.35;
  const lowerY = y + open * 0.65 - p.lipBite * open * 0.5;
  const corner = halfW * (0.15 + 0.5 * p.round);
  // inner opening
  ctx.save();
  ctx.beginPath();
  ctx.moveTo(-halfW, y);
  ctx.bezierCurveTo(-halfW + corner, upperY - 1, halfW - corner, upperY - 1, halfW, y);
  ctx.bezierCurveTo(halfW - corner, lowerY + 1, -halfW + corner, lowerY + 1, -halfW, y);
  ctx.closePath();
  ctx.fillStyle = '#3a1418';
  ctx.fill();
  ctx.clip();
  if (p.teeth > 0.02) {
    ctx.fillStyle = '#f4f1ea';
    const th = Math.min(open * 0.45, 4 + p.teeth * 7);
    ctx.fillRect(-halfW * 0.8, upperY - 2, halfW * 1.6, th + 2);
    if (p.lipBite > 0.2) ctx.fillRect(-halfW * 0.7, upperY, halfW * 1.4, th + 4);
    ctx.fillRect(-halfW * 0.65, lowerY - th * 0.55, halfW * 1.3, th * 0.6);
  }
  if (p.tongue > 0.02 || p.open > 0.3) {
    ctx.fillStyle = '#c75b66';
    ctx.beginPath();
    ctx.ellipse(0, lowerY - 2 - p.tongue * open * 0.35, halfW * 0.55, 4 + open * 0.22, 0, 0, Math.PI * 2);
    ctx.fill();
  }
  ctx.restore();
  // lips
  const lipGrad = ctx.createLinearGradient(0, upperY - lip, 0, lowerY + lip);
  lipGrad.addColorStop(0, shade(m.lips.color, -0.1));
  lipGrad.addColorStop(1, shade(m.lips.color, 0.08));
  ctx.fillStyle = lipGrad;
  ctx.beginPath(); // upper lip
  ctx.moveTo(-halfW - 2, y);
  ctx.bezierCurveTo(
    -halfW * 0.6,
    upperY - lip * 1.2,
    -halfW * 0.2,
    upperY - lip * 1.1,
    0,
    upperY - lip * 0.75,
  );
  ctx.bezierCurveTo(halfW * 0.2, upperY - lip * 1.1, halfW * 0.6, upperY - lip * 1.2, halfW + 2, y);
  ctx.bezierCurveTo(halfW - corner, upperY - 1, -halfW + corner, upperY - 1, -halfW - 2, y);
  ctx.fill();
  ctx.beginPath(); // lower lip
  ctx.moveTo(-halfW - 2, y);
  ctx.bezierCurveTo(-halfW + corner, lowerY + 1, halfW - corner, lowerY + 1, halfW + 2, y);
  ctx.bezierCurveTo(halfW * 0.7, lowerY + lip * 1.5, -halfW * 0.7, lowerY + lip * 1.5, -halfW - 2, y);
  ctx.fill();
  ctx.strokeStyle = 'rgba(60,20,25,0.55)';
  ctx.lineWidth = 1.4;
  ctx.beginPath();
  ctx.moveTo(-halfW - 1, y);
  ctx.bezierCurveTo(-halfW + corner, upperY, halfW - corner, upperY, halfW + 1, y);
  ctx.stroke();
}
