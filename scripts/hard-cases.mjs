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
import { drawGlasses, drawHair, hairPlan, poseAt, turnFrame } from './hard-cases-draw.mjs';

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
