/**
 * The photo avatar renderer (`render: "photo"`). Once per avatar and size, shared by every
 * session of the process: the rig (photo-rig.ts) and, per head-tilt step, the portrait rotated
 * and scaled to the output with a margin for head motion. Each frame then copies the tilt step's
 * image at a whole-pixel offset (head motion and breathing move the whole picture), warps the
 * triangles the mouth moves (and, while blinking or raising the brows, those of the eyes), and
 * shades the inner mouth where the lips part. docs/avatars.md describes the pack.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createCanvas, Image, type Canvas } from '@napi-rs/canvas';
import type { PhotoAvatarManifest } from '../avatar/manifest.js';
import { createInnerMouth } from './inner-mouth.js';
import { mouthColours, type MouthColours } from './mouth-colours.js';
import { fillTriangle, warpTriangle, type Image32 } from './mesh-warp.js';
import {
  buildRig,
  modeWeights,
  MODES,
  PHOTO_POSE,
  place,
  pose,
  type PhotoRig,
  type PhotoSampler,
  type Vec,
} from './photo-rig.js';
import type { Renderer } from './renderer.js';

/** Tilt is drawn in steps of this many radians; each step's picture is made once. */
const TILT_STEP = 0.005;
/** Whole-picture rise when breathing in, in output pixels at 512×512. */
const BREATH_PX = 2;
/** Margin around the output for head motion, in output pixels. */
const MARGIN = 16;

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

function sharedFor(
  m: PhotoAvatarManifest,
  dir: string,
  width: number,
  height: number,
): { key: string; s: Shared } {
  const file = join(dir, m.image);
  const key = `${file}:${statSync(file).mtimeMs}@${width}x${height}`;
  let s = shared.get(key);
  if (!s) {
    const image = new Image();
    image.src = readFileSync(file);
    // the whole portrait fits; wider (or taller) outputs show its edges stretched at its sides
    const scale = Math.min(width / image.width, height / image.height);
    const left = (width - image.width * scale) / 2;
    const top = (height - image.height * scale) / 2;
    const rig = buildRig(
      m.landmarks.map(([x, y]): Vec => [x + left / scale, y + top / scale]),
      photoSampler(image, left / scale, top / scale),
    );
    const chin: Vec = [rig.rest[16]! * scale, rig.rest[17]! * scale];
    s = {
      rig,
      image,
      surround: surround(image),
      scale,
      left,
      top,
      pivot: [chin[0] + rig.u[0] * rig.faceW * 0.3 * scale, chin[1] + rig.u[1] * rig.faceW * 0.3 * scale],
      steps: new Map(),
      colours: undefined,
      users: 0,
    };
    shared.set(key, s);
    warm(key, s, width, height);
  }
  s.users++;
  return { key, s };
}

/** The portrait's colours at points in the rig's coordinates (the portrait offset by dx, dy). */
function photoSampler(image: Image, dx: number, dy: number): PhotoSampler {
  const c = createCanvas(image.width, image.height);
  c.getContext('2d').drawImage(image, 0, 0);
  const px = c.getContext('2d').getImageData(0, 0, image.width, image.height).data;
  return (x, y) => {
    const ix = Math.round(x - dx - 0.5);
    const iy = Math.round(y - dy - 0.5);
    if (ix < 0 || iy < 0 || ix >= image.width || iy >= image.height) return undefined;
    const o = (iy * image.width + ix) * 4;
    return [px[o]!, px[o + 1]!, px[o + 2]!];
  };
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

/** Tilt steps the animator reaches (|tilt| < 0.06 rad), made one per timer turn, nearest first. */
const MAX_STEP = 12;
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
  const { width, height } = size;
  const { key, s } = sharedFor(m, dir, width, height);
  const { rig } = s;
  const n = rig.rest.length / 2;
  const src = new Float64Array(n * 2);
  const dst = new Float64Array(n * 2);
  const moved = new Uint8Array(n);
  const out: Image32 = { px: new Uint8ClampedArray(width * height * 4), width, height };
  const motionScale = Math.min(width, height) / 512;
  const dTri = new Float64Array(6);
  const sTri = new Float64Array(6);
  const inner = createInnerMouth();
  const mark = (_x: number, _y: number, o: number): void => {
    out.px[o + 3] = 0;
  };
  let closed = false;
  let last = '';
  const tri = (t: number): void => {
    for (let k = 0; k < 3; k++) {
      const v = rig.tris[t * 3 + k]!;
      dTri[k * 2] = dst[v * 2]!;
      dTri[k * 2 + 1] = dst[v * 2 + 1]!;
      sTri[k * 2] = src[v * 2]! + MARGIN;
      sTri[k * 2 + 1] = src[v * 2 + 1]! + MARGIN;
    }
  };
  /** Marks the cavity's pixels (alpha 0); the box around it, grown by 3 pixels. */
  const markCavity = (): [number, number, number, number] | undefined => {
    let bx0 = width;
    let by0 = height;
    let bx1 = 0;
    let by1 = 0;
    for (const t of rig.cavity) {
      tri(t);
      fillTriangle(out, dTri, mark);
      for (let k = 0; k < 6; k += 2) {
        bx0 = Math.min(bx0, dTri[k]!);
        bx1 = Math.max(bx1, dTri[k]!);
        by0 = Math.min(by0, dTri[k + 1]!);
        by1 = Math.max(by1, dTri[k + 1]!);
      }
    }
    return bx1 > bx0
      ? [Math.floor(bx0) - 3, Math.floor(by0) - 3, Math.ceil(bx1) + 3, Math.ceil(by1) + 3]
      : undefined;
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
    render({ mouth, motion }) {
      if (closed) throw new Error('renderer is closed');
      const step = Math.max(-MAX_STEP, Math.min(MAX_STEP, Math.round(motion.tilt / TILT_STEP)));
      const angle = step * TILT_STEP;
      const rise = Math.round(Math.max(0, Math.min(1, motion.breath)) * BREATH_PX * motionScale);
      const dx = Math.max(-MARGIN, Math.min(MARGIN, Math.round(motion.headX * motionScale)));
      const dy = Math.max(-MARGIN, Math.min(MARGIN, Math.round(motion.headY * motionScale) - rise));
      const weights = modeWeights(mouth, motion);
      // an unchanged pose (most idle frames: head offsets are whole pixels) is the last frame again
      const poseKey = `${step},${dx},${dy},${MODES.map((m) => weights[m].toFixed(4)).join(',')},${mouth.teeth.toFixed(3)},${mouth.tongue.toFixed(3)}`;
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
      const cos = Math.cos(angle);
      const sin = Math.sin(angle);
      const r: Vec = [rig.r[0] * cos - rig.r[1] * sin, rig.r[0] * sin + rig.r[1] * cos];
      const u: Vec = [rig.u[0] * cos - rig.u[1] * sin, rig.u[0] * sin + rig.u[1] * cos];
      // the cavity's pixels are marked, the lips warped over their edges, then the inner mouth is
      // drawn over the box where the lips part, blended into the lips
      const box = markCavity();
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
