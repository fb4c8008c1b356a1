/**
 * Makes a test clip (talking-clip.ts holds the API, options and cache): the photo avatar of the
 * test portrait, rendered frame by frame by the engine's photo renderer, placed on the video
 * frame and piped to ffmpeg as raw RGBA while the next frame renders.
 */
import { existsSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createAnimator } from '../animation/animator.js';
import { loadAvatarPack } from '../avatar/catalog.js';
import type { PhotoAvatarManifest } from '../avatar/manifest.js';
import { importPhotoAvatar, PhotoImportError } from '../avatar/photo-import.js';
import { SAMPLE_RATE_HZ } from '../clock/media-clock.js';
import { REST_MOTION, REST_MOUTH, type FaceMotion, type MouthParams } from '../face-state.js';
import { createPhotoRenderer, type PhotoRenderer } from '../render/photo-renderer.js';
import { startEncoder, type FrameEncoder } from './ffmpeg.js';
import { backOfHead, mixWords } from './talking-clip-back.js';
import { portraitFixture } from './portrait-fixture.js';
import { clipSpeech, wavBytes, type ClipSpeech, type FrameSpeech } from './talking-clip-speech.js';
import type {
  ClipFacePlacement,
  ClipFaceTruth,
  ClipFrameTruth,
  ClipTruth,
  ResolvedClipOptions,
} from './talking-clip.js';

/** The face of a `tiny` clip, pixels across. */
export const TINY_FACE_PX = 90;
/** How long the face takes to slide out of view (or turn away) and back, seconds. */
const SLIDE_S = 0.4;
const PACK_ID = 'astronaut-x2';
/** Frames handed to ffmpeg and not yet taken, at most. */
const IN_FLIGHT = 6;

/** The test portrait scaled ×2 as a photo pack, imported once into the cache folder. */
async function portraitPack(packs: string): Promise<{ manifest: PhotoAvatarManifest; dir: string }> {
  const dir = join(packs, PACK_ID);
  if (!existsSync(join(dir, 'avatar.json'))) {
    try {
      await importPhotoAvatar(
        { id: PACK_ID, name: 'Astronaut ×2', image: await portraitFixture({ scale: 2 }) },
        packs,
      );
    } catch (err) {
      if (!(err instanceof PhotoImportError && err.code === 'exists')) throw err; // made meanwhile
    }
  }
  const { manifest } = loadAvatarPack(dir);
  if (manifest.render !== 'photo') throw new Error(`${dir} is not a photo pack`);
  return { manifest, dir };
}

/** A PNG's width from its header. */
function pngWidth(file: string): number {
  return readFileSync(file).readUInt32BE(16);
}

/** Where each avatar frame goes. */
function placements(r: ResolvedClipOptions, m: PhotoAvatarManifest, portraitPx: number): ClipFacePlacement[] {
  const [x0, y0] = m.landmarks[0]!;
  const [x16, y16] = m.landmarks[16]!;
  const jaw = Math.hypot(x16 - x0, y16 - y0) / portraitPx; // face width / avatar frame side
  const n = r.faces;
  const fit =
    n === 1 ? Math.round(r.height * 0.8) : Math.round(Math.min(r.height * 0.8, (r.width / 2) * 0.9));
  const size = r.tiny ? Math.round(TINY_FACE_PX / jaw) : (r.faceSize ?? fit);
  return Array.from({ length: n }, (_, i) => {
    const cx = n === 1 ? r.width / 2 : ((i * 2 + 1) * r.width) / 4;
    const x = r.x !== undefined ? r.x + i * size : Math.round(cx - size / 2);
    const y = r.y ?? Math.round((r.height - size) / 2);
    return { size, x, y, acrossPx: Math.round(jaw * size * 10) / 10 };
  });
}

/** The frames [from, to) with every face out of view, centred in the clip. */
function awayWindow(frames: number, fraction: number): [number, number] | null {
  const n = Math.round(frames * fraction);
  if (n === 0) return null;
  const from = Math.floor((frames - n) / 2);
  return [from, from + n];
}

/** How far (0 in view … 1 wholly away) the face has slid or turned away in frame i. */
function slideAt(i: number, away: [number, number] | null, slideFrames: number): number {
  if (!away) return 0;
  const [from, to] = away;
  let f = 0;
  if (i >= from && i < to) f = 1;
  else if (i < from) f = 1 - (from - i) / (slideFrames + 1);
  else f = 1 - (i - to + 1) / (slideFrames + 1);
  f = Math.max(0, f);
  return f * f * (3 - 2 * f);
}

/** `#rrggbb` as an RGBA word (little-endian). */
function rgbaWord(hex: string): number {
  const v = parseInt(hex.slice(1), 16);
  return (((v >> 16) & 255) | (((v >> 8) & 255) << 8) | ((v & 255) << 16) | (255 << 24)) >>> 0;
}

/** Copies an avatar frame into the video frame at (x, y), clipped to the frame. */
function blit(
  dst: Uint32Array,
  width: number,
  height: number,
  src: Uint32Array,
  side: number,
  x: number,
  y: number,
) {
  const c0 = Math.max(0, -x);
  const c1 = Math.min(side, width - x);
  if (c1 <= c0) return;
  for (let row = Math.max(0, -y); row < side && y + row < height; row++)
    dst.set(src.subarray(row * side + c0, row * side + c1), (y + row) * width + x + c0);
}

const round = (v: number, k: number): number => Math.round(v * k) / k;

function roundMouth(m: MouthParams): MouthParams {
  return {
    open: round(m.open, 1e3),
    width: round(m.width, 1e3),
    round: round(m.round, 1e3),
    teeth: round(m.teeth, 1e3),
    lipBite: round(m.lipBite, 1e3),
    tongue: round(m.tongue, 1e3),
  };
}

function roundMotion(m: FaceMotion): FaceMotion {
  return {
    blink: round(m.blink, 1e3),
    headX: round(m.headX, 1e3),
    headY: round(m.headY, 1e3),
    tilt: round(m.tilt, 1e5),
    breath: round(m.breath, 1e3),
    brow: round(m.brow, 1e3),
    gazeX: round(m.gazeX, 1e3),
    gazeY: round(m.gazeY, 1e3),
  };
}

/** One face of one frame: animated, turned away as far as it is (0–1), drawn into the video frame. */
interface FaceDrawer {
  draw(px: Uint32Array, i: number, speech: FrameSpeech, away: number): ClipFaceTruth;
  close(): void;
}

function faceDrawer(
  r: ResolvedClipOptions,
  pack: { manifest: PhotoAvatarManifest; dir: string },
  f: ClipFacePlacement,
  k: number,
): FaceDrawer {
  const { width, height, fps } = r;
  const renderer: PhotoRenderer = createPhotoRenderer(pack.manifest, pack.dir, {
    width: f.size,
    height: f.size,
  });
  const animator = createAnimator({ seed: r.seed + k * 7919 });
  const words = (rgba: Uint8ClampedArray): Uint32Array =>
    new Uint32Array(rgba.buffer, rgba.byteOffset, rgba.length >> 2);
  // away 'slide': out towards the nearer side of the frame; 'back': the back of the head instead
  const out = f.x + f.size / 2 < width / 2 ? -(f.x + f.size) : width - f.x;
  const back =
    r.awayStyle === 'back'
      ? backOfHead(renderer.render({ mouth: REST_MOUTH, motion: REST_MOTION }), f.size, renderer.landmarks())
      : undefined;
  const mixed = back && new Uint32Array(f.size * f.size);
  return {
    draw(px, i, sp, away) {
      const motion = animator.next({ tMs: (i * 1000) / fps, speaking: sp.speaking, emphasis: sp.emphasis });
      const x = back ? f.x : f.x + Math.round(away * out);
      let landmarks: Array<[number, number]> | null = null;
      if (back && away >= 1) blit(px, width, height, back, f.size, x, f.y);
      else if (x < width && x + f.size > 0 && f.y < height && f.y + f.size > 0) {
        let face = words(renderer.render({ mouth: sp.mouth, motion }));
        if (back && mixed && away > 0) face = mixWords(face, back, away, mixed);
        blit(px, width, height, face, f.size, x, f.y);
        landmarks = renderer
          .landmarks()
          .map(([lx, ly]): [number, number] => [round(lx + x, 10), round(ly + f.y, 10)]);
      }
      const visible =
        (!back || away < 0.5) &&
        (landmarks?.every(([lx, ly]) => lx >= 0 && lx < width && ly >= 0 && ly < height) ?? false);
      return { x, y: f.y, visible, motion: roundMotion(motion), landmarks };
    },
    close: () => renderer.close(),
  };
}

/** Renders every frame into the encoder, several frames ahead of what ffmpeg has taken. */
async function renderFrames(
  r: ResolvedClipOptions,
  speech: ClipSpeech,
  drawers: readonly FaceDrawer[],
  away: [number, number] | null,
  encoder: FrameEncoder,
): Promise<ClipFrameTruth[]> {
  const { width, height, fps } = r;
  const bg = rgbaWord(r.background);
  // ffmpeg reads, converts and (VP8) encodes in one thread: frames in flight keep both busy
  const buffers = Array.from({ length: IN_FLIGHT }, () => new Uint8Array(width * height * 4));
  const written: Array<Promise<void>> = buffers.map(() => Promise.resolve());
  const slideFrames = Math.round(SLIDE_S * fps);
  const perFrame: ClipFrameTruth[] = [];
  for (let i = 0; i < speech.frames.length; i++) {
    const sp = speech.frames[i]!;
    const slot = i % IN_FLIGHT;
    await written[slot]; // this buffer has been taken by ffmpeg
    const buf = buffers[slot]!;
    const px = new Uint32Array(buf.buffer);
    px.fill(bg);
    const slide = slideAt(i, away, slideFrames);
    perFrame.push({
      i,
      tS: round(i / fps, 1e4),
      speaking: sp.speaking,
      sentence: sp.sentence,
      viseme: sp.viseme,
      emphasis: round(sp.emphasis, 1e3),
      mouth: roundMouth(sp.mouth),
      faces: drawers.map((d) => d.draw(px, i, sp, slide)),
    });
    written[slot] = encoder.write(buf);
  }
  await Promise.all(written);
  return perFrame;
}

/** Renders and encodes the clip into `io.out`; answers its ground truth. */
export async function renderClip(
  r: ResolvedClipOptions,
  io: { out: string; packsDir: string; tmp: string },
): Promise<ClipTruth> {
  const { width, height, fps } = r;
  const pack = await portraitPack(io.packsDir);
  const faces = placements(r, pack.manifest, pngWidth(join(pack.dir, pack.manifest.image)));
  const speech = await clipSpeech({
    fps,
    frames: r.durationS === undefined ? undefined : Math.round(r.durationS * fps),
    voiceId: r.voiceId,
    speed: r.speed,
    speech: r.speech,
  });
  const frames = speech.frames.length;
  const away = awayWindow(frames, r.awayFraction);
  const wav = r.audio ? `${io.tmp}.wav` : undefined;
  if (wav) await writeFile(wav, wavBytes(speech.pcm));
  const drawers: FaceDrawer[] = [];
  const encoder = startEncoder({ out: io.out, width, height, fps, format: r.format, wav });
  let perFrame: ClipFrameTruth[];
  try {
    faces.forEach((f, k) => drawers.push(faceDrawer(r, pack, f, k)));
    perFrame = await renderFrames(r, speech, drawers, away, encoder);
    await encoder.finish();
  } catch (err) {
    encoder.kill();
    await rm(io.out, { force: true });
    throw err;
  } finally {
    for (const d of drawers) d.close();
    if (wav) await rm(wav, { force: true });
  }
  const s = (sample: number): number => round(sample / SAMPLE_RATE_HZ, 1e4);
  return {
    version: 1,
    options: r,
    width,
    height,
    fps,
    frames,
    durationS: frames / fps,
    audio: r.audio,
    away,
    sentences: speech.sentences.map((x) => ({
      text: x.text,
      startS: s(x.startSample),
      endS: s(x.endSample),
      words: x.words.map((w) => ({
        text: w.text,
        startS: s(x.startSample + w.startSample),
        endS: s(x.startSample + w.endSample),
      })),
    })),
    faces,
    perFrame,
  };
}
