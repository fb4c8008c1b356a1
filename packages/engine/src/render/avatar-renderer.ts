/** The renderer for a pack, by its `render` kind. */
import type { AnyAvatarManifest } from '../avatar/manifest.js';
import { createPhotoRenderer } from './photo-renderer.js';
import { createRenderer, type Renderer } from './renderer.js';

export function createAvatarRenderer(
  manifest: AnyAvatarManifest,
  size: { width: number; height: number },
  dir?: string,
): Renderer {
  switch (manifest.render) {
    case 'vector':
      return createRenderer(manifest, size);
    case 'photo':
      if (!dir) throw new Error(`photo avatar ${manifest.id} needs its pack folder`);
      return createPhotoRenderer(manifest, dir, size);
  }
}
