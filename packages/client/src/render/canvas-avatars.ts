/**
 * The vector and sprite avatars' browser renderers: @mouthpiece/draw's own drawing (the code the
 * engine draws video frames with, docs/design.md §13.1) on the page's canvas. A sprite pack's
 * pictures are decoded once with createImageBitmap; the drawing caches are remade for each size.
 */
import {
  createCanvasSpriteAvatar,
  createCanvasVectorAvatar,
  VISEMES,
  type CanvasAvatar,
  type SpriteLook,
  type SpritePictures,
  type VectorLook,
  type Viseme,
} from '@mouthpiece/draw/browser';
import type { AnimationFrame } from '@mouthpiece/protocol';
import { RendererUnavailable, type BrowserRenderer, type LoadedPack, type RendererFactory } from './types.js';

/** A renderer over a CanvasAvatar made anew for each size (`make` reads the canvas's size). */
function sized(canvas: HTMLCanvasElement, make: () => CanvasAvatar): BrowserRenderer {
  let avatar: CanvasAvatar | undefined;
  return {
    resize(width, height) {
      if (canvas.width !== width) canvas.width = width;
      if (canvas.height !== height) canvas.height = height;
      avatar?.close();
      avatar = make();
    },
    draw(frame: AnimationFrame) {
      (avatar ??= make()).draw({ mouth: frame.mouth, motion: frame.motion });
    },
    restore() {
      // (its cached layers and scaled pictures may have lost their pixels with the context)
      avatar?.close();
      avatar = make();
    },
    close() {
      avatar?.close();
      avatar = undefined;
    },
  };
}

export const vectorRenderer: RendererFactory = (pack, canvas, opts) => {
  const look = pack.manifest as unknown as VectorLook;
  if (typeof look.id !== 'string' || typeof look.background !== 'object' || typeof look.skin !== 'object')
    return Promise.reject(new RendererUnavailable('pack-failed', 'the vector manifest lacks its look'));
  return Promise.resolve(
    sized(canvas, () => createCanvasVectorAvatar(look, canvas, { background: opts.background })),
  );
};

/** A sprite manifest's picture names (docs/avatars.md). */
interface SpriteManifest extends SpriteLook {
  base: string;
  mouth: SpriteLook['mouth'] & { shapes: Record<Viseme, string> };
  blink?: (NonNullable<SpriteLook['blink']> & { images: string[] }) | undefined;
}

export const spriteRenderer: RendererFactory = async (pack, canvas, opts) => {
  const m = pack.manifest as unknown as SpriteManifest;
  if (typeof m.base !== 'string' || typeof m.mouth?.shapes !== 'object' || typeof m.size !== 'object')
    throw new RendererUnavailable('pack-failed', 'the sprite manifest lacks its pictures');
  const pictures = await decodePictures(pack, m);
  const background = opts.background ?? m.background; // the session's replaces the pack's, as in the engine
  return sized(canvas, () => createCanvasSpriteAvatar(m, pictures, canvas, { background }));
};

async function decodePictures(pack: LoadedPack, m: SpriteManifest): Promise<SpritePictures> {
  const decode = async (name: string): Promise<ImageBitmap> => {
    const bytes = pack.bytes.get(name);
    const entry = pack.files.find((f) => f.name === name);
    if (!bytes) throw new RendererUnavailable('pack-failed', `the sprite pack has no file ${name}`);
    try {
      return await createImageBitmap(new Blob([bytes], { type: entry?.contentType ?? 'image/png' }));
    } catch (err) {
      throw new RendererUnavailable(
        'pack-failed',
        `the sprite picture ${name} does not decode (${err instanceof Error ? err.message : String(err)})`,
      );
    }
  };
  const mouths = await Promise.all(VISEMES.map(async (v) => [v, await decode(m.mouth.shapes[v])] as const));
  return {
    base: await decode(m.base),
    mouths: Object.fromEntries(mouths) as Record<Viseme, ImageBitmap>,
    blinks: await Promise.all((m.blink?.images ?? []).map(decode)),
  };
}
