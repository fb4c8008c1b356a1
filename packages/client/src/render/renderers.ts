/**
 * Which renderer draws each avatar kind in the browser (`render: 'client'`). A kind without one
 * here runs as video, with `renderFallback` reason 'unsupported-kind'.
 */
import { spriteRenderer, vectorRenderer } from './canvas-avatars.js';
import type { AvatarKind, RendererFactory } from './types.js';

export const RENDERERS: Readonly<Record<AvatarKind, RendererFactory | undefined>> = {
  vector: vectorRenderer,
  sprites: spriteRenderer,
  // ── the photo avatar's WebGL renderer goes here: photoRenderer from './photo-gl.js' ──
  photo: undefined,
  // ── the video avatar's player goes here: videoRenderer from './video-player.js' ──
  video: undefined,
};

/** The factory of a kind, or undefined when this SDK cannot draw it. */
export function rendererFor(kind: AvatarKind, registry = RENDERERS): RendererFactory | undefined {
  return registry[kind];
}
