/**
 * Draws a vector avatar from its manifest in a 512×512 design space: body and clothing, hair,
 * head, eyes with blink and gaze, brows, nose, and a mouth built from continuous MouthParams
 * (lips, inner mouth, teeth, tongue, lip-bite), so neighbouring visemes blend smoothly.
 */
import type { SKRSContext2D } from '@napi-rs/canvas';
import type { AvatarManifest } from '../avatar/manifest.js';
import type { FaceMotion, MouthParams } from '../face-state.js';

type Ctx = SKRSContext2D;

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

export function geometry(m: AvatarManifest): FaceGeometry {
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

function headPath(ctx: Ctx, g: FaceGeometry, m: AvatarManifest): void {
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

export function drawBackground(ctx: Ctx, m: AvatarManifest, width: number, height: number): void {
  const grad = ctx.createLinearGradient(0, 0, 0, height);
  grad.addColorStop(0, m.background.top);
  grad.addColorStop(1, m.background.bottom);
  ctx.fillStyle = grad;
  ctx.fillRect(0, 0, width, height);
  const glow = ctx.createRadialGradient(
    width / 2,
    height * 0.35,
    10,
    width / 2,
    height * 0.35,
    Math.max(width, height) * 0.6,
  );
  glow.addColorStop(0, 'rgba(255,255,255,0.35)');
  glow.addColorStop(1, 'rgba(255,255,255,0)');
  ctx.fillStyle = glow;
  ctx.fillRect(0, 0, width, height);
}

export function drawBody(ctx: Ctx, m: AvatarManifest, g: FaceGeometry): void {
  const { cx } = g;
  const neckTop = g.cy + g.hl * 0.6;
  const neckW = g.jawW * 0.62;
  const shoulderY = 420;
  // neck
  ctx.fillStyle = m.skin.shadow;
  ctx.beginPath();
  ctx.moveTo(cx - neckW, neckTop);
  ctx.lineTo(cx - neckW * 1.05, shoulderY);
  ctx.lineTo(cx + neckW * 1.05, shoulderY);
  ctx.lineTo(cx + neckW, neckTop);
  ctx.closePath();
  ctx.fill();
  // torso
  const c = m.clothing;
  const torso = ctx.createLinearGradient(0, 380, 0, 512);
  torso.addColorStop(0, c.color);
  torso.addColorStop(1, shade(c.color, -0.25));
  ctx.fillStyle = torso;
  ctx.beginPath();
  ctx.moveTo(cx - 230, 520);
  ctx.bezierCurveTo(cx - 225, 440, cx - 170, 402, cx - neckW * 1.3, 396);
  ctx.quadraticCurveTo(cx, c.style === 'turtleneck' ? 380 : 440, cx + neckW * 1.3, 396);
  ctx.bezierCurveTo(cx + 170, 402, cx + 225, 440, cx + 230, 520);
  ctx.closePath();
  ctx.fill();
  switch (c.style) {
    case 'tshirt':
      ctx.strokeStyle = c.accent;
      ctx.lineWidth = 5;
      ctx.beginPath();
      ctx.moveTo(cx - neckW * 1.3, 398);
      ctx.quadraticCurveTo(cx, 445, cx + neckW * 1.3, 398);
      ctx.stroke();
      break;
    case 'collar':
    case 'blazer': {
      // shirt V and collar points
      ctx.fillStyle = c.style === 'blazer' ? c.accent : shade(c.color, 0.15);
      ctx.beginPath();
      ctx.moveTo(cx - neckW * 1.25, 396);
      ctx.lineTo(cx, 470);
      ctx.lineTo(cx + neckW * 1.25, 396);
      ctx.closePath();
      ctx.fill();
      ctx.fillStyle = c.style === 'blazer' ? '#ffffff' : c.accent;
      for (const s of [-1, 1]) {
        ctx.beginPath();
        ctx.moveTo(cx + s * neckW * 1.05, 392);
        ctx.lineTo(cx + s * neckW * 1.55, 418);
        ctx.lineTo(cx + s * 6, 436);
        ctx.closePath();
        ctx.fill();
      }
      if (c.style === 'blazer') {
        ctx.fillStyle = shade(c.color, -0.12);
        for (const s of [-1, 1]) {
          ctx.beginPath();
          ctx.moveTo(cx + s * neckW * 1.5, 404);
          ctx.lineTo(cx + s * 10, 512);
          ctx.lineTo(cx + s * 70, 512);
          ctx.lineTo(cx + s * neckW * 2.2, 420);
          ctx.closePath();
          ctx.fill();
        }
      }
      break;
    }
    case 'hoodie':
      ctx.fillStyle = shade(c.color, -0.18);
      ctx.beginPath();
      ctx.ellipse(cx, 404, neckW * 1.9, 26, 0, Math.PI, 0, true);
      ctx.fill();
      ctx.strokeStyle = c.accent;
      ctx.lineWidth = 4;
      for (const s of [-1, 1]) {
        ctx.beginPath();
        ctx.moveTo(cx + s * 22, 420);
        ctx.lineTo(cx + s * 26, 470);
        ctx.stroke();
      }
      break;
    case 'turtleneck':
      ctx.fillStyle = c.accent;
      ctx.beginPath();
      ctx.roundRect(cx - neckW * 1.12, neckTop + 22, neckW * 2.24, shoulderY - neckTop - 10, 14);
      ctx.fill();
      ctx.strokeStyle = shade(c.accent, -0.2);
      ctx.lineWidth = 2;
      for (let y = neckTop + 34; y < shoulderY; y += 11) {
        ctx.beginPath();
        ctx.moveTo(cx - neckW * 1.05, y);
        ctx.quadraticCurveTo(cx, y + 5, cx + neckW * 1.05, y);
        ctx.stroke();
      }
      break;
  }
}

function drawHairBack(ctx: Ctx, m: AvatarManifest, g: FaceGeometry): void {
  const { hw, hl } = g;
  ctx.fillStyle = m.hair.color;
  switch (m.hair.style) {
    case 'afro': {
      ctx.beginPath();
      ctx.ellipse(0, -hl * 0.28, hw * 1.62, hl * 1.08, 0, 0, Math.PI * 2);
      ctx.fill();
      // soft texture: a lighter crown and faint curls along the rim
      const crown = ctx.createRadialGradient(-hw * 0.3, -hl * 0.9, 5, 0, -hl * 0.28, hw * 1.6);
      crown.addColorStop(0, withAlpha(m.hair.highlight, 0.9));
      crown.addColorStop(1, withAlpha(m.hair.highlight, 0));
      ctx.fillStyle = crown;
      ctx.fill();
      ctx.strokeStyle = withAlpha(m.hair.highlight, 0.45);
      ctx.lineWidth = 2;
      for (let i = 0; i < 40; i++) {
        const a = (i / 40) * Math.PI * 2;
        const r = 0.8 + 0.15 * Math.sin(i * 2.3);
        ctx.beginPath();
        ctx.arc(Math.cos(a) * hw * 1.45 * r, -hl * 0.28 + Math.sin(a) * hl * 0.95 * r, 7, a, a + Math.PI);
        ctx.stroke();
      }
      break;
    }
    case 'bob':
      ctx.beginPath();
      ctx.moveTo(-hw * 1.18, hl * 0.55);
      ctx.bezierCurveTo(-hw * 1.4, -hl * 1.2, hw * 1.4, -hl * 1.2, hw * 1.18, hl * 0.55);
      ctx.quadraticCurveTo(0, hl * 0.62, -hw * 1.18, hl * 0.55);
      ctx.fill();
      break;
    case 'long':
    case 'wavy':
      ctx.beginPath();
      ctx.moveTo(-hw * 1.2, hl * 1.45);
      ctx.bezierCurveTo(-hw * 1.5, -hl * 1.25, hw * 1.5, -hl * 1.25, hw * 1.2, hl * 1.45);
      ctx.closePath();
      ctx.fill();
      break;
    case 'bun':
      ctx.beginPath();
      ctx.arc(0, -hl * 1.02, hw * 0.45, 0, Math.PI * 2);
      ctx.fill();
      break;
    case 'short':
    case 'buzz':
      break;
  }
}

function drawHairFront(ctx: Ctx, m: AvatarManifest, g: FaceGeometry): void {
  const { hw, hl } = g;
  const grad = ctx.createLinearGradient(0, -hl, 0, -hl * 0.2);
  grad.addColorStop(0, m.hair.highlight);
  grad.addColorStop(1, m.hair.color);
  ctx.fillStyle = grad;
  ctx.beginPath();
  switch (m.hair.style) {
    case 'afro':
      ctx.moveTo(-hw * 1.02, -hl * 0.2);
      ctx.bezierCurveTo(-hw * 1.1, -hl * 1.25, hw * 1.1, -hl * 1.25, hw * 1.02, -hl * 0.2);
      ctx.bezierCurveTo(hw * 0.7, -hl * 0.62, -hw * 0.7, -hl * 0.62, -hw * 1.02, -hl * 0.2);
      break;
    case 'short':
      ctx.moveTo(-hw * 1.03, -hl * 0.12);
      ctx.bezierCurveTo(-hw * 1.12, -hl * 1.22, hw * 1.12, -hl * 1.22, hw * 1.03, -hl * 0.12);
      ctx.bezierCurveTo(hw * 0.9, -hl * 0.52, hw * 0.2, -hl * 0.68, -hw * 0.25, -hl * 0.6);
      ctx.bezierCurveTo(-hw * 0.7, -hl * 0.55, -hw * 0.95, -hl * 0.4, -hw * 1.03, -hl * 0.12);
      break;
    case 'bob':
      ctx.moveTo(-hw * 1.08, hl * 0.1);
      ctx.bezierCurveTo(-hw * 1.2, -hl * 1.22, hw * 1.2, -hl * 1.22, hw * 1.08, hl * 0.1);
      ctx.lineTo(hw * 0.92, -hl * 0.38);
      ctx.lineTo(-hw * 0.92, -hl * 0.38);
      ctx.closePath();
      break;
    case 'long':
    case 'wavy':
    case 'bun':
      ctx.moveTo(-hw * 1.05, hl * 0.05);
      ctx.bezierCurveTo(-hw * 1.15, -hl * 1.2, hw * 1.15, -hl * 1.2, hw * 1.05, hl * 0.05);
      ctx.bezierCurveTo(hw * 0.8, -hl * 0.6, hw * 0.1, -hl * 0.72, 0, -hl * 0.66);
      ctx.bezierCurveTo(-hw * 0.2, -hl * 0.5, -hw * 0.9, -hl * 0.55, -hw * 1.05, hl * 0.05);
      break;
    case 'buzz':
      ctx.globalAlpha = 0.75;
      ctx.moveTo(-hw * 0.99, -hl * 0.25);
      ctx.bezierCurveTo(-hw * 1.04, -hl * 1.12, hw * 1.04, -hl * 1.12, hw * 0.99, -hl * 0.25);
      ctx.bezierCurveTo(hw * 0.6, -hl * 0.66, -hw * 0.6, -hl * 0.66, -hw * 0.99, -hl * 0.25);
      break;
  }
  ctx.fill();
  ctx.globalAlpha = 1;
}

function drawEyes(ctx: Ctx, m: AvatarManifest, g: FaceGeometry, motion: FaceMotion): void {
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

function drawBrows(ctx: Ctx, m: AvatarManifest, g: FaceGeometry, motion: FaceMotion): void {
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

function drawNose(ctx: Ctx, m: AvatarManifest, g: FaceGeometry): void {
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

export function drawMouth(ctx: Ctx, m: AvatarManifest, g: FaceGeometry, p: MouthParams): void {
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

function drawAccessories(ctx: Ctx, m: AvatarManifest, g: FaceGeometry): void {
  const ey = g.eyeY - g.cy;
  if (m.accessories.earrings) {
    ctx.fillStyle = '#e1b955';
    for (const s of [-1, 1]) {
      ctx.beginPath();
      ctx.arc(s * (g.hw + 2), g.hl * 0.28, 5, 0, Math.PI * 2);
      ctx.fill();
    }
  }
  if (m.accessories.glasses) {
    ctx.strokeStyle = '#2b2b30';
    ctx.lineWidth = 3.5;
    for (const s of [-1, 1]) {
      ctx.beginPath();
      ctx.roundRect(s * g.eyeDx - 25, ey - 17, 50, 33, 10);
      ctx.stroke();
    }
    ctx.beginPath();
    ctx.moveTo(-g.eyeDx + 25, ey - 4);
    ctx.quadraticCurveTo(0, ey - 12, g.eyeDx - 25, ey - 4);
    ctx.stroke();
    ctx.beginPath();
    ctx.moveTo(-g.eyeDx - 25, ey - 6);
    ctx.lineTo(-g.hw + 2, ey - 10);
    ctx.moveTo(g.eyeDx + 25, ey - 6);
    ctx.lineTo(g.hw - 2, ey - 10);
    ctx.stroke();
  }
}

/** Moves the context into head-local coordinates (origin at the face centre) with the head's motion. */
export function headTransform(ctx: Ctx, g: FaceGeometry, motion: FaceMotion): void {
  ctx.translate(g.cx + motion.headX, g.cy + motion.headY);
  ctx.translate(0, g.hl);
  ctx.rotate(motion.tilt);
  ctx.translate(0, -g.hl);
}

/** The parts of the head under the features, which never change: back hair, ears, skin, beard, cheeks, nose. */
export function drawHeadUnder(ctx: Ctx, m: AvatarManifest, g: FaceGeometry): void {
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
  m: AvatarManifest,
  g: FaceGeometry,
  mouth: MouthParams,
  motion: FaceMotion,
): void {
  drawEyes(ctx, m, g, motion);
  drawBrows(ctx, m, g, motion);
  drawMouth(ctx, m, g, mouth);
}

/** The parts over the features, which never change: front hair and accessories. */
export function drawHeadOver(ctx: Ctx, m: AvatarManifest, g: FaceGeometry): void {
  drawHairFront(ctx, m, g);
  drawAccessories(ctx, m, g);
}

/** Draws the whole head with the motion's transform, around the neck (no caching). */
export function drawHead(
  ctx: Ctx,
  m: AvatarManifest,
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

/** Lightens (amount > 0) or darkens (< 0) a #rrggbb colour. */
export function shade(hex: string, amount: number): string {
  const n = parseInt(hex.slice(1), 16);
  const f = (c: number): number =>
    Math.round(Math.min(255, Math.max(0, amount >= 0 ? c + (255 - c) * amount : c * (1 + amount))));
  const r = f((n >> 16) & 255);
  const g = f((n >> 8) & 255);
  const b = f(n & 255);
  return `#${((r << 16) | (g << 8) | b).toString(16).padStart(6, '0')}`;
}

function withAlpha(hex: string, a: number): string {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255},${(n >> 8) & 255},${n & 255},${a})`;
}
