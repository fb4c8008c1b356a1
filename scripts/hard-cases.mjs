#!/usr/bin/env node
/**
 * Hard cases for the video avatar's compositor (issue #29), made from a real talking-head clip:
 *
 *   hair     dark strands over one cheek and the jaw's side in stretches (≈ 40 % of the frames),
 *            swaying a little from frame to frame, so some library crops have hair and others not;
 *   turn     the head rolls (± 8°), sways sideways and approximately yaws (a cylindrical squeeze
 *            about the face's centre, ± 0.35 rad), so crops and base frames differ in pose;
 *   glasses  dark frames over the eyes for the whole clip;
 *   all30    turn + hair + glasses, at 30 fps.
 *
 * Usage: node scripts/hard-cases.mjs <clip> [outDir] [--cases hair,turn,glasses,all30]
 *        [--seed 1] [--width 540] [--min-seconds 20.6] [--side left|right]
 * Writes only into outDir (default $TMPDIR/mouthpiece-hard-cases): <case>.mp4 (H.264 + the clip's
 * own audio, padded with silence where the video is lengthened) and <case>.json (the options).
 * Deterministic for one seed. The clip is decoded once per case by Debian's ffmpeg, drawn with
 * @napi-rs/canvas; the face is found and followed by the engine's own detector and landmark net
 * (build the engine first: npm run build).
 *
 * A clip made from footage that may not be published (the test fixtures' README) stays where it
 * is written: never commit one, or a frame of one.
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createCanvas, ImageData } from '@napi-rs/canvas';

const { detectFacesSsd, landmarksIn, trackingBox } = await import(
  new URL('../packages/engine/dist/video/face-tracker.js', import.meta.url).href
);

// ---------------------------------------------------------------- arguments

function parseArgs(argv) {
  const opts = { cases: ['hair', 'turn', 'all30'], seed: 1, width: 540, minSeconds: 20.6, side: 'left' };
  const pos = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) {
      pos.push(a);
      continue;
    }
    const v = argv[++i];
    if (v === undefined) throw new Error(`${a} needs a value`);
    if (a === '--cases') opts.cases = v.split(',');
    else if (a === '--seed') opts.seed = Number(v);
    else if (a === '--width') opts.width = Number(v) & ~1;
    else if (a === '--min-seconds') opts.minSeconds = Number(v);
    else if (a === '--side') opts.side = v === 'right' ? 'right' : 'left';
    else throw new Error(`unknown option ${a}`);
  }
  if (!pos[0]) throw new Error('usage: hard-cases.mjs <clip> [outDir] [--cases hair,turn,glasses,all30]');
  return {
    clip: resolve(pos[0]),
    outDir: resolve(pos[1] ?? join(tmpdir(), 'mouthpiece-hard-cases')),
    ...opts,
  };
}

const CASES = {
  hair: { hair: true, turn: false, glasses: false, fps: 0 },
  turn: { hair: false, turn: true, glasses: false, fps: 0 },
  glasses: { hair: false, turn: false, glasses: true, fps: 0 },
  all30: { hair: true, turn: true, glasses: true, fps: 30 },
};

// ---------------------------------------------------------------- helpers

/** mulberry32: a small seeded generator, so a seed makes the same clip every time. */
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function probe(file) {
  const out = execFileSync('ffprobe', [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-show_entries',
    'stream=width,height,r_frame_rate:format=duration',
    '-of',
    'json',
    file,
  ]);
  const j = JSON.parse(out.toString());
  const s = j.streams[0];
  const [n, d] = s.r_frame_rate.split('/').map(Number);
  return { width: s.width, height: s.height, fps: n / (d || 1), durationS: Number(j.format.duration) };
}

/** Reads whole frames of `bytes` from a readable, one at a time. */
async function* frames(readable, bytes) {
  let buf = Buffer.alloc(0);
  for await (const chunk of readable) {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    while (buf.length >= bytes) {
      yield buf.subarray(0, bytes);
      buf = buf.subarray(bytes);
    }
  }
}

// ---------------------------------------------------------------- the face over time

/**
 * Follows the face through the source frames as the import does: the engine's SSD detector on the
 * first frame, then the 68-point net in a box around the previous frame's landmarks, smoothed a
 * little (an exponential average) so drawn things do not jitter. Always on the untouched frame.
 */
function faceFollower(W, H) {
  const rgb = new Uint8Array(W * H * 3);
  let prev;
  return async (rgba) => {
    for (let i = 0, o = 0; i < rgb.length; i += 3, o += 4) {
      rgb[i] = rgba[o];
      rgb[i + 1] = rgba[o + 1];
      rgb[i + 2] = rgba[o + 2];
    }
    const frame = { rgb, width: W, height: H };
    if (!prev) {
      const faces = await detectFacesSsd(frame);
      if (!faces[0]) throw new Error("no face found in the clip's first frame");
      prev = faces[0].landmarks;
    }
    const lm = await landmarksIn(frame, trackingBox(prev));
    prev = lm.map(([x, y], i) => [prev[i][0] + 0.6 * (x - prev[i][0]), prev[i][1] + 0.6 * (y - prev[i][1])]);
    return prev;
  };
}

// ---------------------------------------------------------------- turn: roll, sway, yaw

/**
 * The head's pose at time t: roll (rad), yaw (rad, applied as a cylindrical squeeze) and a shift
 * (px). Sums of slow sines at unrelated periods, so no stretch repeats.
 */
function poseAt(t, W) {
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
function yawMap(cx, R, yaw) {
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

function turnFrame(src, dst, pose, cx, cy, R, W, H) {
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
function hairPlan(random, frameCount, fps, share = 0.4) {
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
function strandSet(random) {
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
function drawHair(ctx, lm, stretch, t, k, side, W) {
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
const MIRROR = (() => {
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

function drawGlasses(ctx, lm, W) {
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

// ---------------------------------------------------------------- one case

async function makeCase(name, spec, a, info) {
  const W = a.width;
  const H = Math.round((info.height / info.width) * W) & ~1;
  const fps = spec.fps || info.fps;
  const srcFrames = Math.floor(info.durationS * fps);
  const total = Math.max(srcFrames, Math.ceil(a.minSeconds * fps));
  const random = rng(a.seed * 7919 + name.length);
  const hair = spec.hair ? hairPlan(random, total, fps) : [];
  const out = join(a.outDir, `${name}.mp4`);
  const started = Date.now();

  const dec = spawn(
    'ffmpeg',
    [
      '-v',
      'error',
      '-i',
      a.clip,
      '-vf',
      `fps=${fps},scale=${W}:${H}:flags=area`,
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgba',
      'pipe:1',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const enc = spawn(
    'ffmpeg',
    [
      '-v',
      'error',
      '-y',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgba',
      '-s',
      `${W}x${H}`,
      '-r',
      String(fps),
      '-i',
      'pipe:0',
      '-i',
      a.clip,
      '-map',
      '0:v',
      '-map',
      '1:a?',
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-crf',
      '17',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
      '-b:a',
      '128k',
      '-af',
      'apad',
      '-t',
      (total / fps).toFixed(3),
      '-movflags',
      '+faststart',
      out,
    ],
    { stdio: ['pipe', 'inherit', 'inherit'] },
  );
  const encDone = new Promise((res, rej) =>
    enc.on('close', (c) => (c === 0 ? res() : rej(new Error(`encoder exit ${c}`)))),
  );

  const src = createCanvas(W, H);
  const sctx = src.getContext('2d');
  const dst = createCanvas(W, H);
  const dctx = dst.getContext('2d');
  const follow = faceFollower(W, H);
  const faces = []; // each source frame's landmarks
  // the last frames, played backwards if the clip must be made longer
  const tail = [];
  const tailLen = total - srcFrames + 2;
  const write = (buf) =>
    enc.stdin.write(buf) ? Promise.resolve() : new Promise((r) => enc.stdin.once('drain', r));
  const draw = async (rgba, n) => {
    const t = n / fps;
    // a frame from the tail stands at the time of the source frame it is
    const srcN = n < srcFrames ? n : Math.max(0, srcFrames - 2 - (n - srcFrames));
    sctx.putImageData(
      new ImageData(new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.length), W, H),
      0,
      0,
    );
    faces[srcN] ??= await follow(rgba);
    let lm = faces[srcN];
    if (spec.turn) {
      const cx = (lm[0][0] + lm[16][0]) / 2;
      const jaw = Math.hypot(lm[16][0] - lm[0][0], lm[16][1] - lm[0][1]);
      const map = turnFrame(src, dst, poseAt(t, W), cx, lm[30][1], jaw * 0.95, W, H);
      lm = lm.map(map);
    } else {
      dctx.drawImage(src, 0, 0);
    }
    for (const s of hair) {
      if (n < s.start || n >= s.end) continue;
      const fall = 0.2 * fps;
      const k = Math.min(1, (n - s.start + 1) / fall, (s.end - n) / fall);
      drawHair(dctx, lm, s, t, k, a.side, W);
    }
    if (spec.glasses) drawGlasses(dctx, lm, W);
    await write(Buffer.from(dctx.getImageData(0, 0, W, H).data.buffer));
  };

  let n = 0;
  for await (const f of frames(dec.stdout, W * H * 4)) {
    if (n >= srcFrames) break;
    const copy = Buffer.from(f);
    if (srcFrames - n <= tailLen) tail.push(copy);
    await draw(copy, n++);
  }
  dec.kill();
  for (let i = tail.length - 2; n < total && i >= 0; i--) await draw(tail[i], n++);
  enc.stdin.end();
  await encDone;
  const seconds = (Date.now() - started) / 1000;
  const hairFrames = hair.reduce((s, h) => s + h.end - h.start, 0);
  const meta = {
    case: name,
    source: a.clip,
    seed: a.seed,
    width: W,
    height: H,
    fps,
    frames: total,
    hair: hair.map((h) => ({ start: h.start, end: h.end })),
    hairShare: +(hairFrames / total).toFixed(3),
    side: a.side,
    turn: spec.turn,
    glasses: spec.glasses,
    makeSeconds: seconds,
  };
  writeFileSync(join(a.outDir, `${name}.json`), JSON.stringify(meta, null, 1));
  console.log(
    `${name}: ${out} (${total} frames at ${fps} fps, hair on ${hairFrames}) in ${seconds.toFixed(1)} s`,
  );
}

// ---------------------------------------------------------------- main

const a = parseArgs(process.argv.slice(2));
mkdirSync(a.outDir, { recursive: true });
const info = probe(a.clip);
for (const c of a.cases) {
  const spec = CASES[c];
  if (!spec) throw new Error(`unknown case ${c} (${Object.keys(CASES).join(', ')})`);
  await makeCase(c, spec, a, info);
}
