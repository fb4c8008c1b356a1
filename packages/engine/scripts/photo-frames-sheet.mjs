// Sheets of a photo avatar's mouth, to look at it as a viewer would: the mouth shapes A–H and X,
// or consecutive video frames of a spoken sentence (espeak-ng and the engine's own mouth track,
// sampled at each 25 fps frame's centre), each at full size (1:1 crops of the lower face) and as
// close-ups (pixels enlarged `--zoom` times, unsmoothed, so every rendered pixel shows).
// Runs against the built dist/:
//   npx tsc -b
//   node packages/engine/scripts/photo-frames-sheet.mjs PACK_DIR OUT_PREFIX [--shapes]
//     [--text "…"] [--voice en-us-female] [--frames 30] [--from N] [--zoom 4] [--motion]
// writes OUT_PREFIX-full.png (512×512 frames, halved, plus 1:1 crops) and OUT_PREFIX-close-K.png
// (close-ups, six per page). --from is the first frame (default: a few frames before speech);
// --motion adds the animator's head motion, blinks and breathing. Make a pack first with
// photo-pack.mjs. Portraits of real people stay out of the repository: write sheets to /tmp.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createCanvas, Image } from '@napi-rs/canvas';
import { createAnimator } from '../dist/animation/animator.js';
import { loadAvatarPack } from '../dist/avatar/catalog.js';
import { REST_MOTION } from '../dist/face-state.js';
import { buildMouthTrack } from '../dist/lipsync/mouth-track.js';
import { MOUTH_SHAPES } from '../dist/lipsync/mouth-shapes.js';
import { createAvatarRenderer } from '../dist/render/avatar-renderer.js';
import { espeakSpeech } from '../dist/testing/espeak-speech.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    shapes: { type: 'boolean', default: false },
    text: { type: 'string', default: 'Hello, how are you today? I would love to show you around.' },
    voice: { type: 'string', default: 'en-us-female' },
    frames: { type: 'string', default: '30' },
    from: { type: 'string' },
    zoom: { type: 'string', default: '4' },
    motion: { type: 'boolean', default: false },
  },
});
const [dir, prefix] = positionals;
if (!dir || !prefix) {
  console.error(
    'usage: photo-frames-sheet.mjs PACK_DIR OUT_PREFIX [--shapes] [--text …] [--frames N] [--from N] [--zoom K] [--motion]',
  );
  process.exit(2);
}
const SIZE = 512;
const FPS = 25;
const RATE = 48_000;
const zoom = Number(values.zoom);

/** The frames to draw: { label, mouth, motion }. */
async function cells() {
  if (values.shapes)
    return [...'ABCDEFGHX'].map((v) => ({ label: v, mouth: MOUTH_SHAPES[v], motion: REST_MOTION }));
  const tts = espeakSpeech();
  const seg = await tts.synthesize({ text: values.text, voiceId: values.voice, speed: 1 });
  await tts.close();
  const track = buildMouthTrack({ phonemes: seg.phonemes, totalSamples: seg.pcm.length });
  const at = (n) => Math.round(((n + 0.5) / FPS) * RATE);
  const total = Math.floor((seg.pcm.length / RATE) * FPS);
  let from = values.from === undefined ? undefined : Number(values.from);
  if (from === undefined) {
    let first = 0;
    while (first < total && track.at(at(first)).open < 0.05) first++;
    from = Math.max(0, first - 2);
  }
  const anim = createAnimator({ seed: 1 });
  const out = [];
  for (let n = 0; n < from + Number(values.frames); n++) {
    const motion = anim.next({ tMs: n * 40, speaking: true, emphasis: track.emphasisAt(at(n)) });
    if (n < from) continue;
    const mouth = track.at(at(n));
    const label = `${n} ${track.visemeAt(at(n))} o${mouth.open.toFixed(2)} w${mouth.width.toFixed(2)} r${mouth.round.toFixed(2)}`;
    out.push({ label, mouth, motion: values.motion ? motion : REST_MOTION });
  }
  return out;
}

function page(w, h) {
  const c = createCanvas(w, h);
  const ctx = c.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, w, h);
  ctx.font = '14px sans-serif';
  return { c, ctx };
}

const { manifest } = loadAvatarPack(dir);
const portrait = new Image();
portrait.src = readFileSync(join(dir, manifest.image));
const k = SIZE / Math.max(portrait.width, portrait.height);
const L = (i) => manifest.landmarks[i].map((v) => v * k);
const mouthW = Math.hypot(L(54)[0] - L(48)[0], L(54)[1] - L(48)[1]);
// the lower face (1:1) and the mouth (close-up), centred on the mouth
const [mx, my] = [(L(48)[0] + L(54)[0]) / 2, (L(62)[1] + L(66)[1]) / 2];
const face = { w: Math.round(mouthW * 2.6), h: Math.round(mouthW * 2.2) };
const faceAt = [Math.round(mx - face.w / 2), Math.round(my - face.h * 0.4)];
const close = { w: Math.round(mouthW * 1.3), h: Math.round(mouthW * 0.95) };
const closeAt = [Math.round(mx - close.w / 2), Math.round(my - close.h * 0.42)];

const list = await cells();
const r = createAvatarRenderer(manifest, { width: SIZE, height: SIZE }, dir);
const frame = createCanvas(SIZE, SIZE);
const fctx = frame.getContext('2d');
const frames = [];
for (const cell of list) {
  const rgba = r.render({ mouth: cell.mouth, motion: cell.motion });
  const img = fctx.createImageData(SIZE, SIZE);
  img.data.set(rgba);
  const c = createCanvas(SIZE, SIZE);
  c.getContext('2d').putImageData(img, 0, 0);
  frames.push(c);
  await new Promise((res) => setImmediate(res));
}
r.close();

// full size: the first three frames whole (halved), then every frame's lower face at 1:1
const cols = 6;
const rows = Math.ceil(frames.length / cols);
const full = page(Math.max(cols * face.w, 3 * (SIZE / 2)), SIZE / 2 + 20 + rows * (face.h + 20));
for (let i = 0; i < Math.min(3, frames.length); i++)
  full.ctx.drawImage(frames[i], 0, 0, SIZE, SIZE, i * (SIZE / 2), 0, SIZE / 2, SIZE / 2);
for (const [i, c] of frames.entries()) {
  const x = (i % cols) * face.w;
  const y = SIZE / 2 + 20 + Math.floor(i / cols) * (face.h + 20);
  full.ctx.drawImage(c, faceAt[0], faceAt[1], face.w, face.h, x, y, face.w, face.h);
  full.ctx.fillStyle = '#222222';
  full.ctx.fillText(list[i].label, x + 4, y + face.h + 15);
}
writeFileSync(`${prefix}-full.png`, full.c.toBuffer('image/png'));
console.log(`${prefix}-full.png`);

// close-ups, six per page, pixels enlarged without smoothing
const per = 6;
const cw = close.w * zoom;
const ch = close.h * zoom;
for (let p = 0; p * per < frames.length; p++) {
  const n = Math.min(per, frames.length - p * per);
  const sheet = page(3 * cw, Math.ceil(n / 3) * (ch + 20));
  sheet.ctx.imageSmoothingEnabled = false;
  for (let j = 0; j < n; j++) {
    const i = p * per + j;
    const x = (j % 3) * cw;
    const y = Math.floor(j / 3) * (ch + 20);
    sheet.ctx.drawImage(frames[i], closeAt[0], closeAt[1], close.w, close.h, x, y, cw, ch);
    sheet.ctx.fillStyle = '#222222';
    sheet.ctx.fillText(list[i].label, x + 4, y + ch + 15);
  }
  writeFileSync(`${prefix}-close-${p + 1}.png`, sheet.c.toBuffer('image/png'));
  console.log(`${prefix}-close-${p + 1}.png`);
}
process.exit(0);
