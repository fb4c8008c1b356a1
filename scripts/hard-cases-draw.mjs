// The drawing of scripts/hard-cases.mjs: a head that turns (roll, sway, an approximate yaw), hair
// falling over a cheek, glasses. Pure functions of a frame's landmarks and time; seeded by the
// caller's generator.
import { createCanvas } from '@napi-rs/canvas';

// ---------------------------------------------------------------- turn: roll, sway, yaw

/**
 * The head's pose at time t: roll (rad), yaw (rad, applied as a cylindrical squeeze) and a shift
 * (px). Sums of slow sines at unrelated periods, so no stretch repeats.
 */
export function poseAt(t, W) {
  return {
    roll: ((8 * Math.PI) / 180) * Math.sin((2 * Math.PI * t) / 5.3 + 0.4),
    yaw: 0.35 * Math.sin((2 * Math.PI * t) / 7.1 + 1.3),
    dx: 0.04 * W * Math.sin((2 * Math.PI * t) / 4.3) + 0.015 * W * Math.sin((2 * Math.PI * t) / 1.7),
    dy: 0.02 * W * Math.sin((2 * Math.PI * t) / 3.7 + 2),
  };
}

/**
 * The yaw's horizontal map: a cylinder of radius R about the face's centre cx turned by yaw; a point
 * at angle θ = asin((x − cx)/R) goes to cx + R sin(θ + yaw). Beyond |θ| = 55° the map goes on as a
 * straight line with the slope it has there, so it stays monotonic and continuous to the edges.
 */
export function yawMap(cx, R, yaw) {
  const lim = (55 * Math.PI) / 180;
  const inside = (th) => cx + R * Math.sin(th + yaw);
  const slope = (th) => Math.cos(th + yaw) / Math.cos(th);
  return (x) => {
    const u = (x - cx) / R;
    const th = Math.asin(Math.max(-1, Math.min(1, u)));
    if (Math.abs(th) <= lim) return inside(th);
    const e = Math.sign(th) * lim;
    const xe = cx + R * Math.sin(e);
    return inside(e) + (x - xe) * slope(e);
  };
}

export function turnFrame(src, dst, pose, cx, cy, R, W, H) {
  const f = yawMap(cx, R, pose.yaw);
  const strip = createCanvas(W, H);
  const sc = strip.getContext('2d');
  const step = 4;
  for (let x = 0; x < W; x += step) {
    const x1 = Math.min(W, x + step);
    const d0 = f(x);
    const d1 = f(x1);
    // half a pixel of overlap hides the strips' joins
    sc.drawImage(src, x, 0, x1 - x, H, d0 - 0.5, 0, d1 - d0 + 1, H);
  }
  const scale = 1.12; // covers the corners a roll of 8° would leave empty
  const c = dst.getContext('2d');
  c.save();
  c.fillStyle = '#000';
  c.fillRect(0, 0, W, H);
  c.translate(cx + pose.dx, cy + pose.dy);
  c.rotate(pose.roll);
  c.scale(scale, scale);
  c.translate(-cx, -cy);
  c.drawImage(strip, 0, 0);
  c.restore();
  // the same map for points (landmarks)
  const cos = Math.cos(pose.roll) * scale;
  const sin = Math.sin(pose.roll) * scale;
  return ([x, y]) => {
    const u = f(x) - cx;
    const v = y - cy;
    return [cx + pose.dx + u * cos - v * sin, cy + pose.dy + u * sin + v * cos];
  };
}

// ---------------------------------------------------------------- hair

/**
 * Stretches of the clip with hair: random lengths of 1–3 s, placed until `share` of the frames are
 * covered; each stretch's hair falls in over 0.2 s and out again.
 */
export function hairPlan(random, frameCount, fps, share = 0.4) {
  const covered = new Uint8Array(frameCount);
  const stretches = [];
  let n = 0;
  for (let tries = 0; n < share * frameCount && tries < 200; tries++) {
    const len = Math.round((1 + 2 * random()) * fps);
    const start = Math.floor(random() * Math.max(1, frameCount - len));
    if (covered.subarray(Math.max(0, start - fps), Math.min(frameCount, start + len + fps)).some((c) => c))
      continue;
    covered.fill(1, start, start + len);
    n += len;
    stretches.push({ start, end: start + len, strands: strandSet(random) });
  }
  return stretches.sort((a, b) => a.start - b.start);
}

/** A lock of strands: each a curve from the temple down over the cheek past the jaw. */
export function strandSet(random) {
  const strands = [];
  const count = 18 + Math.floor(random() * 10);
  for (let i = 0; i < count; i++) {
    const light = random() < 0.15;
    const tone = light ? 70 + random() * 30 : 18 + random() * 22;
    strands.push({
      across: random(), // where across the lock (0 outer, 1 inner)
      bow: 0.1 + random() * 0.25, // how far the middle bends inwards, in jaw widths
      width: light ? 0.6 + random() * 1 : 1.5 + random() * 4.5, // px at a 540 px frame
      alpha: light ? 0.35 + random() * 0.25 : 0.7 + random() * 0.28,
      rgb: [tone * 1.25, tone, tone * 0.8].map(Math.round),
      phase: random() * Math.PI * 2,
      freq: 0.3 + random() * 0.5, // Hz of its sway
      reach: 0.85 + random() * 0.3, // how far down it falls, in the lock's length
    });
  }
  return strands;
}

/**
 * Draws a lock over one cheek: from above the cheekbone beside the eye (outside the face's edge)
 * down over the cheek, past the mouth corner's side, to below the jaw. lm: the 68 landmarks in
 * the output frame; k: 0..1 how far the lock has fallen in.
 */
export function drawHair(ctx, lm, stretch, t, k, side, W) {
  const P = (i) => lm[side === 'left' ? i : MIRROR[i]];
  const jawW = Math.hypot(lm[16][0] - lm[0][0], lm[16][1] - lm[0][1]);
  const px = W / 540;
  const [tx, ty] = P(0); // temple side at the eyes' height
  const [jx, jy] = P(5); // the jaw below the cheek
  const [mx, my] = P(48); // the mouth's corner on this side
  // the inward direction's horizontal part (towards the mouth corner); the lock falls straight down
  const inx = (mx - jx) / (Math.hypot(mx - jx, my - jy) || 1);
  const wide = 0.3 * jawW; // the lock's width
  ctx.save();
  ctx.lineCap = 'round';
  ctx.filter = `blur(${(0.8 * px).toFixed(2)}px)`;
  for (const s of stretch.strands) {
    const sway = 0.025 * jawW * Math.sin(2 * Math.PI * s.freq * t + s.phase);
    const off = (s.across - 0.15) * wide;
    const x0 = tx - 0.08 * jawW + off * inx;
    const y0 = ty - 0.25 * jawW;
    // the end: below the jaw, the lock falling in from above as k grows
    const reach = s.reach * k;
    const ex = jx + (0.1 * jawW + off) * inx + sway * 2;
    const ey = y0 + (jy + 0.3 * jawW - y0) * reach;
    const c1x = x0 + (s.bow * jawW + off) * inx + sway;
    const c1y = y0 + (ey - y0) * 0.35;
    const c2x = ex + s.bow * 0.8 * jawW * inx + sway;
    const c2y = y0 + (ey - y0) * 0.7;
    ctx.strokeStyle = `rgba(${s.rgb[0]},${s.rgb[1]},${s.rgb[2]},${s.alpha.toFixed(2)})`;
    ctx.lineWidth = s.width * px;
    ctx.beginPath();
    ctx.moveTo(x0, y0);
    ctx.bezierCurveTo(c1x, c1y, c2x, c2y, ex, ey);
    ctx.stroke();
  }
  ctx.restore();
}

/** The 68-point scheme's left–right pairs. */
export const MIRROR = (() => {
  const m = Array.from({ length: 68 }, (_, i) => i);
  const pair = (a, b) => {
    m[a] = b;
    m[b] = a;
  };
  for (let i = 0; i <= 7; i++) pair(i, 16 - i);
  for (let i = 0; i < 5; i++) pair(17 + i, 26 - i);
  pair(31, 35);
  pair(32, 34);
  [
    [36, 45],
    [37, 44],
    [38, 43],
    [39, 42],
    [40, 47],
    [41, 46],
  ].forEach(([a, b]) => pair(a, b));
  [
    [48, 54],
    [49, 53],
    [50, 52],
    [59, 55],
    [58, 56],
    [60, 64],
    [61, 63],
    [67, 65],
  ].forEach(([a, b]) => pair(a, b));
  return m;
})();

// ---------------------------------------------------------------- glasses

export function drawGlasses(ctx, lm, W) {
  const px = W / 540;
  const eye = (from) => {
    const pts = lm.slice(from, from + 6);
    const cx = pts.reduce((s, p) => s + p[0], 0) / 6;
    const cy = pts.reduce((s, p) => s + p[1], 0) / 6;
    const w = Math.hypot(pts[3][0] - pts[0][0], pts[3][1] - pts[0][1]);
    return { cx, cy, w };
  };
  const l = eye(36);
  const r = eye(42);
  const angle = Math.atan2(r.cy - l.cy, r.cx - l.cx);
  ctx.save();
  ctx.lineWidth = 4 * px;
  ctx.strokeStyle = 'rgb(20,18,16)';
  for (const e of [l, r]) {
    ctx.save();
    ctx.translate(e.cx, e.cy);
    ctx.rotate(angle);
    ctx.beginPath();
    ctx.ellipse(0, 0, e.w * 0.95, e.w * 0.68, 0, 0, Math.PI * 2);
    ctx.fillStyle = 'rgba(40,40,50,0.18)';
    ctx.fill();
    ctx.stroke();
    ctx.restore();
  }
  const dx = Math.cos(angle);
  const dy = Math.sin(angle);
  ctx.beginPath(); // the bridge
  ctx.moveTo(l.cx + dx * l.w * 0.95, l.cy + dy * l.w * 0.95 - 2 * px);
  ctx.quadraticCurveTo(
    (l.cx + r.cx) / 2,
    (l.cy + r.cy) / 2 - 0.25 * l.w,
    r.cx - dx * r.w * 0.95,
    r.cy - dy * r.w * 0.95 - 2 * px,
  );
  ctx.stroke();
  ctx.beginPath(); // the temples, towards the ears
  ctx.moveTo(l.cx - dx * l.w * 0.95, l.cy - dy * l.w * 0.95);
  ctx.lineTo(lm[0][0], lm[0][1] - 0.1 * l.w);
  ctx.moveTo(r.cx + dx * r.w * 0.95, r.cy + dy * r.w * 0.95);
  ctx.lineTo(lm[16][0], lm[16][1] - 0.1 * r.w);
  ctx.stroke();
  ctx.restore();
}
