// Entry point for managing avatar packs from the control plane (`@mouthpiece/engine/avatars`):
// importing a portrait and drawing previews load native modules (canvas), so the server imports
// this lazily, when an avatar is uploaded or a preview is first asked for.
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
