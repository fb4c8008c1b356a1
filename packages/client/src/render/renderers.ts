/**
 * Which renderer draws each avatar kind in the browser (`render: 'client'`). A kind without one
 * here runs as video, with `renderFallback` reason 'unsupported-kind'.
 */
import { spriteRenderer, vectorRenderer } from './canvas-avatars.js';
import { photoRenderer } from './photo-gl.js';
import { videoRenderer } from './video-player.js';
import type { AvatarKind, RendererFactory } from './types.js';

export const RENDERERS: Readonly<Record<AvatarKind, RendererFactory | undefined>> = {
  vector: vectorRenderer,
  sprites: spriteRenderer,
  photo: photoRenderer,
  video: videoRenderer,
};
