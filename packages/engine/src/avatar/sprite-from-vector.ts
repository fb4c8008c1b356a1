/**
 * Builds a sprite pack from a vector avatar (scripts/sprite-pack.mjs; tests use it too): the base
 * at rest with a transparent background (drawn over black and over white, alpha recovered from
 * the difference), each mouth shape A–H and X cropped at the mouth anchor, and half-closed and
 * closed eyes cropped at the blink anchor.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { REST_MOTION, REST_MOUTH, type MouthParams, type Viseme } from '../face-state.js';
import { MOUTH_SHAPES } from '../lipsync/mouth-shapes.js';
import { createRenderer } from '../render/renderer.js';
import { geometry } from '@mouthpiece/draw';
import type { AvatarManifest, SpriteAvatarManifest } from './manifest.js';

const SIZE = 512;

type Rect = { x: number; y: number; width: number; height: number };

function draw(m: AvatarManifest, mouth: MouthParams, blink: number, background: string): Uint8ClampedArray {
  const r = createRenderer(m, { width: SIZE, height: SIZE }, background);
  try {
    return r.render({ mouth, motion: { ...REST_MOTION, blink } }).slice();
  } finally {
    r.close();
  }
}

/** RGBA with the background made transparent, from the same picture over black and over white. */
function unmatte(black: Uint8ClampedArray, white: Uint8ClampedArray): Uint8ClampedArray {
  const out = new Uint8ClampedArray(black.length);
  for (let i = 0; i < black.length; i += 4) {
    const a =
      255 - Math.max(white[i]! - black[i]!, white[i + 1]! - black[i + 1]!, white[i + 2]! - black[i + 2]!);
    out[i + 3] = a;
    if (a > 0) for (let c = 0; c < 3; c++) out[i + c] = (black[i + c]! * 255) / a;
  }
  return out;
}

async function png(px: Uint8ClampedArray, rect: Rect): Promise<Buffer> {
  const full = createCanvas(SIZE, SIZE);
  const ctx = full.getContext('2d');
  const img = ctx.createImageData(SIZE, SIZE);
  img.data.set(px);
  ctx.putImageData(img, 0, 0);
  const c = createCanvas(rect.width, rect.height);
  c.getContext('2d').drawImage(full, rect.x, rect.y, rect.width, rect.height, 0, 0, rect.width, rect.height);
  return c.encode('png');
}

/** Writes `<packsDir>/<id>` and returns its manifest. */
export async function spritePackFromVector(
  m: AvatarManifest,
  packsDir: string,
  id = `${m.id}-sprites`,
): Promise<SpriteAvatarManifest> {
  const g = geometry(m);
  const mouth: Rect = {
    x: Math.round(g.cx - g.mouthW * 1.5),
    y: Math.round(g.mouthY - g.mouthW * 0.7),
    width: Math.round(g.mouthW * 3),
    height: Math.round(g.mouthW * 1.9),
  };
  const eyes: Rect = {
    x: Math.round(g.cx - g.eyeDx - 34),
    y: Math.round(g.eyeY - 30),
    width: Math.round(2 * g.eyeDx + 68),
    height: 58,
  };
  const dir = join(packsDir, id);
  await mkdir(dir, { recursive: true });
  const whole: Rect = { x: 0, y: 0, width: SIZE, height: SIZE };
  const matte = (mo: MouthParams, blink: number) =>
    unmatte(draw(m, mo, blink, '#000000'), draw(m, mo, blink, '#ffffff'));
  await writeFile(join(dir, 'base.png'), await png(matte(REST_MOUTH, 0), whole));
  const shapes = {} as Record<Viseme, string>;
  for (const v of Object.keys(MOUTH_SHAPES) as Viseme[]) {
    shapes[v] = `mouth-${v}.png`;
    await writeFile(join(dir, shapes[v]), await png(draw(m, MOUTH_SHAPES[v], 0, '#000000'), mouth));
  }
  const blinks = ['blink-half.png', 'blink-closed.png'];
  await writeFile(join(dir, blinks[0]!), await png(draw(m, REST_MOUTH, 0.5, '#000000'), eyes));
  await writeFile(join(dir, blinks[1]!), await png(draw(m, REST_MOUTH, 1, '#000000'), eyes));
  const manifest: SpriteAvatarManifest = {
    id,
    name: `${m.name} (sprites)`,
    version: 1,
    description: `Sprite pack drawn from the vector avatar ${m.id}`,
    render: 'sprites',
    size: { width: SIZE, height: SIZE },
    base: 'base.png',
    background: m.background.bottom,
    mouth: { anchor: mouth, shapes },
    blink: { anchor: eyes, images: blinks },
  };
  await writeFile(join(dir, 'avatar.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
