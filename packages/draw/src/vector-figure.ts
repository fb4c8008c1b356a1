/**
 * The vector avatar around the face: background, body and clothing, hair (behind and in front of
 * the head) and accessories, in the 512×512 design space.
 */
import type { Context2D } from './canvas.js';
import type { VectorLook } from './face.js';
import { shade, withAlpha } from './color.js';
import type { FaceGeometry } from './vector-face.js';

type Ctx = Context2D;

export function drawBackground(ctx: Ctx, m: VectorLook, width: number, height: number): void {
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

export function drawBody(ctx: Ctx, m: VectorLook, g: FaceGeometry): void {
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
  drawClothingDetail(ctx, c, cx, neckW, neckTop, shoulderY);
}

/** The clothing style's own shapes over the torso: neckline, collar, lapels, hood or roll neck. */
function drawClothingDetail(
  ctx: Ctx,
  c: VectorLook['clothing'],
  cx: number,
  neckW: number,
  neckTop: number,
  shoulderY: number,
): void {
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
    case 'blazer':
      drawCollar(ctx, c, cx, neckW);
      break;
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

export function drawHairBack(ctx: Ctx, m: VectorLook, g: FaceGeometry): void {
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

export function drawHairFront(ctx: Ctx, m: VectorLook, g: FaceGeometry): void {
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

export function drawAccessories(ctx: Ctx, m: VectorLook, g: FaceGeometry): void {
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

/** A shirt's V and collar points; a blazer adds lapels. */
function drawCollar(ctx: Ctx, c: VectorLook['clothing'], cx: number, neckW: number): void {
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
}
