/**
 * The sprite avatar renderer (`render: "sprites"`): @mouthpiece/draw's sprite drawing (the same
 * code draws in the browser SDK) with the pack's pictures decoded by Skia from its folder. The
 * scaled pictures are shared by the sessions of the process. docs/avatars.md describes the pack.
 * A session opens it off the media tick (openSpriteRenderer: the pictures read asynchronously and
 * decoded one per timer turn).
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Image } from '@napi-rs/canvas';
import { createSpriteCache, VISEMES, type SpritePictures, type Viseme } from '@mouthpiece/draw';
import type { SpriteAvatarManifest } from '../avatar/manifest.js';
import { skiaCanvas, type Renderer } from './renderer.js';
import { nextTurn } from './turns.js';

export { nearestShapes } from '@mouthpiece/draw';

const sprites = createSpriteCache(skiaCanvas);

function decode(dir: string, file: string): Image {
  const img = new Image();
  img.src = readFileSync(join(dir, file));
  return img;
}

function pictures(m: SpriteAvatarManifest, dir: string): SpritePictures {
  return {
    base: decode(dir, m.base),
    mouths: Object.fromEntries(VISEMES.map((v) => [v, decode(dir, m.mouth.shapes[v])])) as Record<
      Viseme,
      Image
    >,
    blinks: (m.blink?.images ?? []).map((f) => decode(dir, f)),
  };
}

/** The pack's pictures, each read asynchronously and decoded in its own timer turn. */
async function picturesAsync(m: SpriteAvatarManifest, dir: string): Promise<SpritePictures> {
  const decodeLater = async (file: string): Promise<Image> => {
    const bytes = await readFile(join(dir, file));
    await nextTurn(); // the due media ticks run first
    const img = new Image();
    img.src = bytes;
    return img;
  };
  const mouths: Array<[Viseme, Image]> = [];
  for (const v of VISEMES) mouths.push([v, await decodeLater(m.mouth.shapes[v])]);
  const blinks: Image[] = [];
  for (const f of m.blink?.images ?? []) blinks.push(await decodeLater(f));
  return {
    base: await decodeLater(m.base),
    mouths: Object.fromEntries(mouths) as Record<Viseme, Image>,
    blinks,
  };
}

/** createSpriteRenderer for a session: its pictures decoded off the media tick. */
export async function openSpriteRenderer(
  m: SpriteAvatarManifest,
  dir: string,
  size: { width: number; height: number },
  background = m.background ?? '#ffffff',
): Promise<Renderer> {
  const pics = await picturesAsync(m, dir);
  return spriteRenderer(m, dir, () => pics, size, background);
}

export function createSpriteRenderer(
  m: SpriteAvatarManifest,
  dir: string,
  size: { width: number; height: number },
  background = m.background ?? '#ffffff',
): Renderer {
  return spriteRenderer(m, dir, () => pictures(m, dir), size, background);
}

function spriteRenderer(
  m: SpriteAvatarManifest,
  dir: string,
  load: () => SpritePictures,
  size: { width: number; height: number },
  background: string,
): Renderer {
  const drawer = sprites.open(dir, m, load, size, background);
  let closed = false;
  return {
    width: drawer.width,
    height: drawer.height,
    render(state) {
      if (closed) throw new Error('renderer is closed');
      return drawer.render(state);
    },
    renderRegion(state) {
      if (closed) throw new Error('renderer is closed');
      return drawer.update(state);
    },
    close() {
      if (closed) return;
      closed = true;
      drawer.close();
    },
  };
}
