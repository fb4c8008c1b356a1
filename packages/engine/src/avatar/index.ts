// Entry point for tools, tests and benchmarks that make avatar packs in their own process
// (`@mouthpiece/engine/avatars`): it loads Skia (and face-api when a portrait is imported), so the
// server and the CLI never import it; they reach the same work through `@mouthpiece/engine/host`
// (avatar-jobs.ts: a child process per import or preview batch). Tests and benchmarks that compare
// the engine's frames with others (the browser's, e2e/draw-browser) draw them with createAvatarRenderer.
export {
  importPhotoAvatar,
  PhotoImportError,
  PHOTO_LIMITS,
  type PhotoImportErrorCode,
  type PhotoImportRequest,
} from './photo-import.js';
export { readAvatarPacks, loadAvatarPack, BUILTIN_AVATARS_DIR, type AvatarPack } from './catalog.js';
export { previewPng } from './preview.js';
export { spritePackFromVector } from './sprite-from-vector.js';
export { createAvatarRenderer, type AvatarRenderOptions } from '../render/avatar-renderer.js';
