/**
 * The photo avatar renderer (`render: "photo"`). Once per avatar and size, shared by every
 * session of the process: the rig (photo-rig.ts) and, per head-tilt step, the portrait rotated
 * and scaled to the output with a margin for head motion. Each frame then copies the tilt step's
 * image at a whole-pixel offset (head motion and breathing move the whole picture), warps the
 * triangles the mouth moves (and, while blinking or raising the brows, those of the eyes), and
 * shades the inner mouth where the lips part. docs/avatars.md describes the pack.
 *
 * A session opens it off the media tick (openPhotoRenderer): the portrait is read asynchronously,
 * decoded and surrounded in separate slices with timer turns between them, and laid out (the rig:
 * 60–180 ms of arithmetic) by a worker thread (photo-layout-worker.ts), so the process's other
 * sessions keep their 10 ms ticks. Tools may create it synchronously.
 */
import { readFileSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createCanvas, Image, type Canvas } from '@napi-rs/canvas';
import {
  cavityBox,
  createInnerMouth,
  faceAxes,
  markTriangles,
  mouthColours,
  photoFramePose,
  photoLayout,
  place,
  pose,
  triangleAt,
  warpTriangle,
  PHOTO_MARGIN as MARGIN,
  PHOTO_MAX_STEP as MAX_STEP,
  PHOTO_POSE,
  PHOTO_TILT_STEP as TILT_STEP,
  type Image32,
  type MouthColours,
  type PhotoLayout,
  type PhotoRig,
  type Vec,
} from '@mouthpiece/draw';
import type { PhotoAvatarManifest } from '../avatar/manifest.js';
import type { LayoutJob } from './photo-layout-worker.js';
import type { Renderer } from './renderer.js';

interface Step {
  base: Image32;
}

interface Shared {
  rig: PhotoRig;
  image: Image;
  /** The portrait with its edge columns stretched at its sides, and edge rows above and below. */
  surround: Canvas | undefined;
  /** Portrait pixels to output pixels. */
  scale: number;
  /** Output position of the portrait's top-left corner. */
  left: number;
  top: number;
  /** Head tilt pivot (below the chin), in output pixels. */
  pivot: Vec;
  steps: Map<number, Step>;
  colours: MouthColours | undefined;
  users: number;
}

const shared = new Map<string, Shared>();
/** Portraits being prepared off the tick, by the same key: one preparation for sessions starting together. */
const preparing = new Map<string, Promise<Shared>>();

const keyOf = (file: string, mtimeMs: number, width: number, height: number): string =>
  `${file}:${mtimeMs}@${width}x${height}`;

function sharedFor(
  m: PhotoAvatarManifest,
  dir: string,
  width: number,
  height: number,
): { key: string; s: Shared } {
  const file = join(dir, m.image);
  const key = keyOf(file, statSync(file).mtimeMs, width, height);
  let s = shared.get(key);
  if (!s) {
    const image = new Image();
    image.src = readFileSync(file);
    s = sharedOf(image, photoLayout(m.landmarks, pixelsOf(image), width, height), surround(image));
    adopt(key, s, width, height);
  }
  s.users++;
  return { key, s };
}

/** sharedFor off the media tick: an async read, slices for decoding and surround, the layout on a worker. */
async function sharedAsync(
  m: PhotoAvatarManifest,
  dir: string,
  width: number,
  height: number,
): Promise<{ key: string; s: Shared }> {
  const file = join(dir, m.image);
  const key = keyOf(file, (await stat(file)).mtimeMs, width, height);
  let s = shared.get(key);
  if (!s) {
    let made = preparing.get(key);
    if (!made) {
      made = prepare(m, file, width, height).finally(() => preparing.delete(key));
      preparing.set(key, made);
    }
    const ready = await made;
    s = shared.get(key);
    if (!s) adopt(key, (s = ready), width, height);
  }
  s.users++;
  return { key, s };
}

/** Lets the event loop run its due timers (the media ticks) before the next slice. */
const timerTurn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

async function prepare(m: PhotoAvatarManifest, file: string, width: number, height: number): Promise<Shared> {
  const bytes = await readFile(file);
  await timerTurn();
  const image = new Image();
  image.src = bytes;
  const pixels = pixelsOf(image);
  const laidOut = layoutInWorker({
    landmarks: m.landmarks,
    px: pixels.px,
    portraitWidth: pixels.width,
    portraitHeight: pixels.height,
    width,
    height,
  });
  await timerTurn();
  const around = surround(image);
  return sharedOf(image, await laidOut, around);
}

const LAYOUT_WORKER = import.meta.url.endsWith('.ts')
  ? new URL('../../dist/render/photo-layout-worker.js', import.meta.url) // tests run from src/
  : new URL('./photo-layout-worker.js', import.meta.url);

/** photoLayout on a worker thread (photo-layout-worker.ts). */
function layoutInWorker(job: LayoutJob): Promise<PhotoLayout> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(LAYOUT_WORKER, { workerData: job });
    worker.once('message', (layout: PhotoLayout) => resolve(layout));
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(new Error(`the photo layout worker exited (${code}) before it was done`)),
    );
  });
}

function sharedOf(image: Image, layout: PhotoLayout, around: Canvas): Shared {
  return {
    rig: layout.rig,
    image,
    surround: around,
    scale: layout.scale,
    left: layout.left,
    top: layout.top,
    pivot: layout.pivot,
    steps: new Map(),
    colours: undefined,
    users: 0,
  };
}

function adopt(key: string, s: Shared, width: number, height: number): void {
  shared.set(key, s);
  warm(key, s, width, height);
}

/** The portrait's RGBA pixels. */
function pixelsOf(image: Image): Image32 {
  const c = createCanvas(image.width, image.height);
  c.getContext('2d').drawImage(image, 0, 0);
  const px = c.getContext('2d').getImageData(0, 0, image.width, image.height).data;
  return { px, width: image.width, height: image.height };
}

function surround(image: Image): Canvas {
  const iw = image.width;
  const ih = image.height;
  const e = ih / 2;
  const c = createCanvas(iw * 3, ih * 2);
  const ctx = c.getContext('2d');
  ctx.drawImage(image, iw, e);
  ctx.drawImage(image, 0, 0, 1, ih, 0, e, iw, ih);
  ctx.drawImage(image, iw - 1, 0, 1, ih, iw * 2, e, iw, ih);
  ctx.drawImage(c, 0, e, iw * 3, 1, 0, 0, iw * 3, e);
  ctx.drawImage(c, 0, e + ih - 1, iw * 3, 1, 0, e + ih, iw * 3, e);
  return c;
}

/** Tilt steps the animator reaches, made one per timer turn, nearest first. */
const WARM_STEPS = [0, ...Array.from({ length: MAX_STEP }, (_, i) => [i + 1, -(i + 1)]).flat()];

function warm(key: string, s: Shared, width: number, height: number): void {
  let i = 0;
  const next = (): void => {
    if (shared.get(key) !== s) return;
    if (i >= WARM_STEPS.length) {
      s.surround = undefined; // every step the animator reaches is made: the large source goes
      return;
    }
    stepAt(s, width, height, WARM_STEPS[i++]!);
    setTimeout(next, 15).unref();
  };
  setTimeout(next, 15).unref();
}

/** The portrait rotated by the step's tilt about the pivot, its surround filling the margin. */
function stepAt(s: Shared, width: number, height: number, step: number): Step {
  let st = s.steps.get(step);
  if (st) return st;
  const w = width + 2 * MARGIN;
  const h = height + 2 * MARGIN;
  const canvas = createCanvas(w, h);
  const ctx = canvas.getContext('2d');
  ctx.translate(MARGIN + s.pivot[0], MARGIN + s.pivot[1]);
  ctx.rotate(step * TILT_STEP);
  ctx.translate(-s.pivot[0] + s.left, -s.pivot[1] + s.top);
  ctx.scale(s.scale, s.scale);
  s.surround ??= surround(s.image);
  ctx.drawImage(s.surround, -s.image.width, -s.image.height / 2);
  const px = ctx.getImageData(0, 0, w, h).data;
  st = { base: { px, width: w, height: h } };
  s.steps.set(step, st);
  return st;
}

/** A photo renderer also tells where the face's landmarks were drawn (test clips' ground truth). */
export interface PhotoRenderer extends Renderer {
  /** The 68 landmarks of the last frame rendered, [x, y] in output pixels. */
  landmarks(): Array<[number, number]>;
}

export function createPhotoRenderer(
  m: PhotoAvatarManifest,
  dir: string,
  size: { width: number; height: number },
): PhotoRenderer {
  return rendererOf(sharedFor(m, dir, size.width, size.height), size);
}

/** createPhotoRenderer for a session: its portrait made ready off the media tick (see the file comment). */
export async function openPhotoRenderer(
  m: PhotoAvatarManifest,
  dir: string,
  size: { width: number; height: number },
): Promise<PhotoRenderer> {
  return rendererOf(await sharedAsync(m, dir, size.width, size.height), size);
}

function rendererOf(
  { key, s }: { key: string; s: Shared },
  size: { width: number; height: number },
): PhotoRenderer {
  const { width, height } = size;
  const { rig } = s;
  const n = rig.rest.length / 2;
  const src = new Float64Array(n * 2);
  const dst = new Float64Array(n * 2);
  const moved = new Uint8Array(n);
  const out: Image32 = { px: new Uint8ClampedArray(width * height * 4), width, height };
  const dTri = new Float64Array(6);
  const sTri = new Float64Array(6);
  const inner = createInnerMouth();
  let closed = false;
  let last = '';
  const tri = (t: number): void => {
    triangleAt(rig, t, dst, dTri);
    triangleAt(rig, t, src, sTri, -MARGIN, -MARGIN);
  };
  /** Warps the mouth's triangles; one none of whose vertices moved is the picture as copied. */
  const warpMoved = (base: Image32, dx: number, dy: number): void => {
    for (let v = 0; v < n; v++)
      moved[v] =
        Math.abs(dst[v * 2]! - src[v * 2]! - dx) > 0.01 ||
        Math.abs(dst[v * 2 + 1]! - src[v * 2 + 1]! - dy) > 0.01
          ? 1
          : 0;
    for (const t of rig.mouthTris) {
      if (!moved[rig.tris[t * 3]!] && !moved[rig.tris[t * 3 + 1]!] && !moved[rig.tris[t * 3 + 2]!]) continue;
      tri(t);
      warpTriangle(out, dTri, base, sTri);
    }
  };
  return {
    width,
    height,
    render(state) {
      if (closed) throw new Error('renderer is closed');
      const { mouth } = state;
      const { step, angle, dx, dy, weights, key: poseKey } = photoFramePose(state, width, height);
      // an unchanged pose (most idle frames: head offsets are whole pixels) is the last frame again
      if (poseKey === last) return out.px;
      last = poseKey;
      const { base } = stepAt(s, width, height, step);
      // the whole picture at its offset
      const rowBytes = width * 4;
      for (let y = 0; y < height; y++) {
        const from = ((y + MARGIN - dy) * base.width + MARGIN - dx) * 4;
        out.px.set(base.px.subarray(from, from + rowBytes), y * rowBytes);
      }
      // the rest positions in the step's picture, and the frame's positions in the output
      pose(rig, PHOTO_POSE, s.scale, angle, s.pivot, 0, 0, src);
      pose(rig, weights, s.scale, angle, s.pivot, dx, dy, dst);
      s.colours ??= mouthColours(
        base,
        src.map((v) => v + MARGIN),
        rig,
      );
      const { r, u } = faceAxes(rig, angle);
      // the cavity's pixels are marked, the lips warped over their edges, then the inner mouth is
      // drawn over the box where the lips part, blended into the lips
      const box = cavityBox(rig, dst, width, height);
      markTriangles(out, rig, rig.cavity, dst, 0);
      warpMoved(base, dx, dy);
      if (box)
        inner.draw({
          out,
          pos: dst,
          rig,
          r,
          u,
          scale: s.scale,
          stomion: place(rig.stomion, s.scale, angle, s.pivot, dx, dy),
          mouth,
          colours: s.colours,
          box,
        });
      const brow = weights.brow > 0.01;
      for (const [on, list] of [
        [weights.blinkL > 0.01 || brow, rig.lidTris],
        [brow, rig.browTris],
      ] as const)
        if (on)
          for (const t of list) {
            tri(t);
            warpTriangle(out, dTri, base, sTri);
          }
      return out.px;
    },
    landmarks() {
      return Array.from({ length: 68 }, (_, i): [number, number] => [dst[i * 2]!, dst[i * 2 + 1]!]);
    },
    close() {
      if (closed) return;
      closed = true;
      if (--s.users === 0) shared.delete(key);
    },
  };
}
