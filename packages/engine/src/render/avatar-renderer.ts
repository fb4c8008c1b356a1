/** The renderer for a pack, by its `render` kind. */
import type { AnyAvatarManifest } from '../avatar/manifest.js';
import { createPhotoRenderer, openPhotoRenderer } from './photo-renderer.js';
import { createRenderer, type Renderer } from './renderer.js';
import { createSpriteRenderer, openSpriteRenderer } from './sprite-renderer.js';
import { loadVideoPack } from './video-pack-cache.js';
import { createVideoRenderer } from './video-renderer.js';

export interface AvatarRenderOptions {
  /** A flat `#rrggbb` background replacing the avatar's (vector and sprite avatars). */
  background?: string | undefined;
  /** Output frames per second (video avatars play their footage at its own rate); default the pack's. */
  fps?: number | undefined;
  /** A video avatar's base-frame walk seed (random by default; tools that replay a session pass one). */
  seed?: number | undefined;
}

export function createAvatarRenderer(
  manifest: AnyAvatarManifest,
  size: { width: number; height: number },
  dir?: string,
  opts: AvatarRenderOptions = {},
): Renderer {
  const folder = (): string => {
    if (!dir) throw new Error(`avatar ${manifest.id} needs its pack folder`);
    return dir;
  };
  switch (manifest.render) {
    case 'vector':
      return createRenderer(manifest, size, opts.background);
    case 'photo':
      return createPhotoRenderer(manifest, folder(), size);
    case 'sprites':
      return createSpriteRenderer(manifest, folder(), size, opts.background);
    case 'video':
      return createVideoRenderer(manifest, folder(), size, { fps: opts.fps, seed: opts.seed });
  }
}

/**
 * The renderer for a session (process/engine-process.ts): createAvatarRenderer, except that the
 * pack is first made ready off the media tick — a video avatar's pack resident
 * (video-pack-cache.ts), a photo's portrait and a sprite pack's pictures read asynchronously and
 * decoded in slices — so the renderer exists only once its pack is in memory and no frame of it
 * waits for a file. Rejects, naming the avatar and the file, when a video pack cannot be loaded.
 */
export async function openAvatarRenderer(
  manifest: AnyAvatarManifest,
  size: { width: number; height: number },
  dir?: string,
  opts: AvatarRenderOptions = {},
): Promise<Renderer> {
  if (manifest.render === 'vector') return createAvatarRenderer(manifest, size, dir, opts);
  if (!dir) throw new Error(`avatar ${manifest.id} needs its pack folder`);
  if (manifest.render === 'photo') return openPhotoRenderer(manifest, dir, size);
  if (manifest.render === 'sprites') return openSpriteRenderer(manifest, dir, size, opts.background);
  let pack;
  try {
    pack = await loadVideoPack(dir, size);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(`avatar ${manifest.id}: its video pack could not be loaded: ${why}`, { cause: err });
  }
  try {
    return createVideoRenderer(manifest, dir, size, { fps: opts.fps, seed: opts.seed, pack });
  } catch (err) {
    pack.release();
    throw err;
  }
}
