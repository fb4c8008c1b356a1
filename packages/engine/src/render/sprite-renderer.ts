/**
 * The sprite avatar renderer (`render: "sprites"`): the base picture over a flat background, the
 * mouth pictures of the two shapes nearest the frame's mouth parameters cross-faded at the mouth
 * anchor, and the blink pictures faded in at theirs. Head motion and breathing move the whole
 * picture by whole pixels. Pictures are decoded and scaled once per avatar, size and background,
 * and shared by the sessions of the process. docs/avatars.md describes the pack.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCanvas, Image } from '@napi-rs/canvas';
import type { SpriteAvatarManifest } from '../avatar/manifest.js';
import type { MouthParams, Viseme } from '../face-state.js';
import { MOUTH_SHAPES } from '../lipsync/mouth-shapes.js';
import type { Renderer } from './renderer.js';

const MARGIN = 16;
const BREATH_PX = 2;
const SHAPES = Object.keys(MOUTH_SHAPES) as Viseme[];

interface Layer {
  /** Output position at rest and size. */
  x: number;
  y: number;
  width: number;
  height: number;
  px: Uint8ClampedArray;
}

interface Shared {
  base: { px: Uint8ClampedArray; width: number; height: number };
  mouths: Record<Viseme, Layer>;
  blinks: Layer[];
  users: number;
}

const shared = new Map<string, Shared>();

function decode(dir: string, file: string): Image {
  const img = new Image();
  img.src = readFileSync(join(dir, file));
  return img;
}

function layer(
  img: Image,
  rect: { x: number; y: number; width: number; height: number },
  scale: number,
  left: number,
  top: number,
): Layer {
  const x = Math.round(left + rect.x * scale);
  const y = Math.round(top + rect.y * scale);
  const width = Math.max(1, Math.round(rect.width * scale));
  const height = Math.max(1, Math.round(rect.height * scale));
  const c = createCanvas(width, height);
  const ctx = c.getContext('2d');
  ctx.drawImage(img, 0, 0, width, height);
  return { x, y, width, height, px: ctx.getImageData(0, 0, width, height).data };
}

function sharedFor(m: SpriteAvatarManifest, dir: string, width: number, height: number, background: string) {
  const key = `${dir}:${m.id}@${width}x${height}:${background}`;
  let s = shared.get(key);
  if (!s) {
    const scale = Math.min(width / m.size.width, height / m.size.height);
    const left = (width - m.size.width * scale) / 2;
    const top = (height - m.size.height * scale) / 2;
    const w = width + 2 * MARGIN;
    const h = height + 2 * MARGIN;
    const c = createCanvas(w, h);
    const ctx = c.getContext('2d');
    ctx.fillStyle = background;
    ctx.fillRect(0, 0, w, h);
    ctx.drawImage(
      decode(dir, m.base),
      MARGIN + left,
      MARGIN + top,
      m.size.width * scale,
      m.size.height * scale,
    );
    const mouths = Object.fromEntries(
      SHAPES.map((v) => [v, layer(decode(dir, m.mouth.shapes[v]), m.mouth.anchor, scale, left, top)]),
    ) as Record<Viseme, Layer>;
    const blinks = (m.blink?.images ?? []).map((f) =>
      layer(decode(dir, f), m.blink!.anchor, scale, left, top),
    );
    s = { base: { px: ctx.getImageData(0, 0, w, h).data, width: w, height: h }, mouths, blinks, users: 0 };
    shared.set(key, s);
  }
  s.users++;
  return { key, s };
}

/** The two mouth shapes nearest the parameters and their cross-fade weights (summing to 1). */
export function nearestShapes(mouth: MouthParams): Array<[Viseme, number]> {
  const d = SHAPES.map((v): [Viseme, number] => {
    const p = MOUTH_SHAPES[v];
    return [
      v,
      Math.hypot(
        mouth.open - p.open,
        mouth.width - p.width,
        mouth.round - p.round,
        mouth.teeth - p.teeth,
        mouth.lipBite - p.lipBite,
        mouth.tongue - p.tongue,
      ),
    ];
  }).sort((a, b) => a[1] - b[1]);
  const [a, b] = [d[0]!, d[1]!];
  if (a[1] < 1e-6) return [[a[0], 1]];
  return [
    [a[0], b[1] / (a[1] + b[1])],
    [b[0], a[1] / (a[1] + b[1])],
  ];
}

/** Blends a layer over the frame with weight `w` (its alpha too), at an offset. */
function blend(
  out: Uint8ClampedArray,
  width: number,
  height: number,
  l: Layer,
  w: number,
  dx: number,
  dy: number,
) {
  if (w <= 0) return;
  for (let y = 0; y < l.height; y++) {
    const oy = l.y + y + dy;
    if (oy < 0 || oy >= height) continue;
    for (let x = 0; x < l.width; x++) {
      const ox = l.x + x + dx;
      if (ox < 0 || ox >= width) continue;
      const i = (y * l.width + x) * 4;
      const a = (l.px[i + 3]! / 255) * w;
      if (a === 0) continue;
      const o = (oy * width + ox) * 4;
      out[o] = out[o]! + a * (l.px[i]! - out[o]!);
      out[o + 1] = out[o + 1]! + a * (l.px[i + 1]! - out[o + 1]!);
      out[o + 2] = out[o + 2]! + a * (l.px[i + 2]! - out[o + 2]!);
    }
  }
}

export function createSpriteRenderer(
  m: SpriteAvatarManifest,
  dir: string,
  size: { width: number; height: number },
  background = m.background ?? '#ffffff',
): Renderer {
  const { width, height } = size;
  const { key, s } = sharedFor(m, dir, width, height, background);
  const out = new Uint8ClampedArray(width * height * 4);
  const motionScale = Math.min(width, height) / 512;
  let closed = false;
  return {
    width,
    height,
    render({ mouth, motion }) {
      if (closed) throw new Error('renderer is closed');
      const rise = Math.round(Math.max(0, Math.min(1, motion.breath)) * BREATH_PX * motionScale);
      const dx = Math.max(-MARGIN, Math.min(MARGIN, Math.round(motion.headX * motionScale)));
      const dy = Math.max(-MARGIN, Math.min(MARGIN, Math.round(motion.headY * motionScale) - rise));
      const rowBytes = width * 4;
      for (let y = 0; y < height; y++) {
        const from = ((y + MARGIN - dy) * s.base.width + MARGIN - dx) * 4;
        out.set(s.base.px.subarray(from, from + rowBytes), y * rowBytes);
      }
      // the nearest shape drawn fully, the second faded over it
      const [first, second] = nearestShapes(mouth);
      blend(out, width, height, s.mouths[first![0]], 1, dx, dy);
      if (second) blend(out, width, height, s.mouths[second[0]], second[1], dx, dy);
      const b = Math.max(0, Math.min(1, motion.blink));
      if (s.blinks.length === 1) blend(out, width, height, s.blinks[0]!, b, dx, dy);
      else if (s.blinks.length === 2) {
        blend(out, width, height, s.blinks[0]!, b < 0.5 ? 2 * b : 2 - 2 * b, dx, dy);
        blend(out, width, height, s.blinks[1]!, Math.max(0, 2 * b - 1), dx, dy);
      }
      return out;
    },
    close() {
      if (closed) return;
      closed = true;
      if (--s.users === 0) shared.delete(key);
    },
  };
}
