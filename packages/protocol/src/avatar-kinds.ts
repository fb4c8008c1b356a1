/**
 * What an avatar pack is, as the HTTP contract and the browser's renderers name it: its kind (the
 * manifest's `render`) and the roles of the files a renderer outside the engine needs
 * (GET /v1/avatar-session/{id}/avatar lists them: schemas.ts AvatarPackFile). The engine's
 * manifests and pack listing (packages/engine/src/avatar/) and the SDK's renderers import these.
 */

/** How an avatar is drawn: from parameters, one warped portrait, pictures, or a clip of a person. */
export const RenderKind = { vector: 'vector', photo: 'photo', sprites: 'sprites', video: 'video' } as const;
export type RenderKind = (typeof RenderKind)[keyof typeof RenderKind];

/** What a listed pack file is to the renderer (AvatarPackFile's `role`). */
export const PackFileRole = {
  /** sprites: the base picture */
  base: 'base',
  /** sprites: a mouth shape's picture (one per distinct file, A–H and X may share one) */
  mouth: 'mouth',
  /** sprites: a blink picture (half-closed, closed) */
  blink: 'blink',
  /** photo: the portrait the mesh is warped over */
  texture: 'texture',
  /** video: video.json */
  videoIndex: 'video-index',
  /** video: the idle loop's frames (I420) */
  baseFrames: 'base-frames',
  /** video: the mouth library's crops (I420) */
  mouthLibrary: 'mouth-library',
  /** video: the idle loop's frames as VP9 (IVF), an alternative to base-frames */
  baseFramesEncoded: 'base-frames-encoded',
  /** video: the mouth library's crops as VP9 (IVF), an alternative to mouth-library */
  mouthLibraryEncoded: 'mouth-library-encoded',
} as const;
export type PackFileRole = (typeof PackFileRole)[keyof typeof PackFileRole];
