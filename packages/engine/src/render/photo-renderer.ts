/**
 * The photo avatar renderer (`render: "photo"`). Once per avatar and size, shared by every
 * session of the process: the rig (photo-rig.ts) and, per head-tilt step, the portrait rotated
 * and scaled to the output with a margin for head motion. Each frame then copies the tilt step's
 * image at a whole-pixel offset (head motion and breathing move the whole picture), warps the
 * triangles the mouth moves (and, while blinking or raising the brows, those of the eyes), and
 * shades the inner mouth where the lips part. docs/avatars.md describes the pack.
 *
 * A session opens it off the media tick (openPhotoRenderer): the portrait is read asynchronously,
 * decoded in a slice of its own (turns.ts), and laid out (the rig: 60–180 ms of arithmetic) by a
 * worker thread (photo-layout-worker.ts); its tilt pictures are made ahead by another
 * (photo-tilt-worker.ts). So the process's other sessions keep their 10 ms ticks. Tools may create
 * it synchronously.
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
  type Image32,
  type MouthColours,
  type PhotoLayout,
  type PhotoRig,
  type Vec,
} from '@mouthpiece/draw';
import type { PhotoAvatarManifest } from '../avatar/manifest.js';
import type { LayoutJob } from './photo-layout-worker.js';
import type { Renderer } from './renderer.js';
import type { TiltJob, TiltMade } from './photo-tilt-worker.js';
import { surroundOf, tiltPicture } from './photo-tilt.js';
import { defer, nextTurn } from './turns.js';

interface Step {
  base: Image32;
}

interface Shared {
  rig: PhotoRig;
  image: Image;
  /** The portrait's file (the tilt worker reads it). */
  file: string;
  /** The portrait surrounded (photo-tilt.ts), made when a tilt picture is made on this thread. */
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
    s = sharedOf(image, file, photoLayout(m.landmarks, pixelsOf(image), width, height));
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

async function prepare(m: PhotoAvatarManifest, file: string, width: number, height: number): Promise<Shared> {
  const bytes = await readFile(file);
  await nextTurn();
  const image = new Image();
  image.src = bytes;
  const pixels = pixelsOf(image);
  const laidOut = await layoutInWorker({
    landmarks: m.landmarks,
    px: pixels.px,
    portraitWidth: pixels.width,
    portraitHeight: pixels.height,
    width,
    height,
  });
  // the rest pose's tilt picture before the first frame (the worker makes the others): a slice
  // for the surround, one for the picture
  const made = sharedOf(image, file, laidOut);
  await nextTurn();
  made.surround = surroundOf(image);
  await nextTurn();
  stepAt(made, width, height, 0);
  return made;
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

function sharedOf(image: Image, file: string, layout: PhotoLayout): Shared {
  return {
    rig: layout.rig,
    image,
    file,
    surround: undefined,
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

/** Tilt steps the animator reaches, nearest first. */
const WARM_STEPS = [0, ...Array.from({ length: MAX_STEP }, (_, i) => [i + 1, -(i + 1)]).flat()];

const TILT_WORKER = import.meta.url.endsWith('.ts')
  ? new URL('../../dist/render/photo-tilt-worker.js', import.meta.url) // tests run from src/
  : new URL('./photo-tilt-worker.js', import.meta.url);

/**
 * Makes every tilt step the animator reaches ahead, on a worker thread (photo-tilt-worker.ts),
 * nearest first; a step the animator reaches before its picture came is made here (stepAt). If the
 * worker fails, the rest are made here, one piece per turn (turns.ts).
 */
function warm(key: string, s: Shared, width: number, height: number): void {
  const job: TiltJob = {
    file: s.file,
    place: { scale: s.scale, left: s.left, top: s.top, pivot: s.pivot },
    width,
    height,
    steps: WARM_STEPS.filter((step) => !s.steps.has(step)),
  };
  const worker = new Worker(TILT_WORKER, { workerData: job });
  worker.unref();
  worker.on('message', (made: TiltMade) => {
    if (shared.get(key) !== s) return void worker.terminate();
    if (!s.steps.has(made.step)) s.steps.set(made.step, { base: made });
  });
  worker.once('error', () => warmHere(key, s, width, height));
  worker.once('exit', () => {
    if (WARM_STEPS.every((step) => s.steps.has(step))) s.surround = undefined; // the large source goes
  });
}

/** warm on this thread: one step per piece. */
function warmHere(key: string, s: Shared, width: number, height: number): void {
  const next = (): void => {
    if (shared.get(key) !== s) return;
    const step = WARM_STEPS.find((x) => !s.steps.has(x));
    if (step === undefined) {
      s.surround = undefined;
      return;
    }
    stepAt(s, width, height, step);
    defer(next);
  };
  defer(next);
}

/** The tilt picture of `step` (photo-tilt.ts), made now if it is not made yet. */
function stepAt(s: Shared, width: number, height: number, step: number): Step {
  let st = s.steps.get(step);
  if (st) return st;
  s.surround ??= surroundOf(s.image);
  st = { base: tiltPicture(s.surround, s.image, s, { width, height }, step) };
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
  const renderer: PhotoRenderer = {
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
    /** The whole frame, or null when its pose is the last frame's (the session then holds it back). */
    renderRegion(state) {
      const was = last;
      const px = renderer.render(state);
      return last === was ? null : { region: { x: 0, y: 0, width, height }, rgba: px };
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
  return renderer;
}
