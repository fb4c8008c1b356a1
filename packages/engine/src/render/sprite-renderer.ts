/**
 * The sprite avatar renderer (`render: "sprites"`): @mouthpiece/draw's sprite drawing (the same
 * code draws in the browser SDK) with the pack's pictures decoded by Skia from its folder. The
 * scaled pictures are shared by the sessions of the process. docs/avatars.md describes the pack.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Image } from '@napi-rs/canvas';
import { createSpriteCache, VISEMES, type SpritePictures, type Viseme } from '@mouthpiece/draw';
import type { SpriteAvatarManifest } from '../avatar/manifest.js';
import { skiaCanvas, type Renderer } from './renderer.js';

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

export function createSpriteRenderer(
  m: SpriteAvatarManifest,
  dir: string,
  size: { width: number; height: number },
  background = m.background ?? '#ffffff',
): Renderer {
  const drawer = sprites.open(dir, m, () => pictures(m, dir), size, background);
  let closed = false;
  return {
    width: drawer.width,
    height: drawer.height,
    render(state) {
      if (closed) throw new Error('renderer is closed');
      return drawer.render(state);
    },
    close() {
      if (closed) return;
      closed = true;
      drawer.close();
    },
  };
}
