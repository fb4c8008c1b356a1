/** The renderer for a pack, by its `render` kind. */
import type { AnyAvatarManifest } from '../avatar/manifest.js';
import { createPhotoRenderer } from './photo-renderer.js';
import { createRenderer, type Renderer } from './renderer.js';
import { createSpriteRenderer } from './sprite-renderer.js';
import { createVideoRenderer } from './video-renderer.js';

export interface AvatarRenderOptions {
  /** A flat `#rrggbb` background replacing the avatar's (vector and sprite avatars). */
  background?: string | undefined;
  /** Output frames per second (video avatars play their footage at its own rate); default the pack's. */
  fps?: number | undefined;
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
      return createVideoRenderer(manifest, folder(), size, { fps: opts.fps });
  }
}
