// The `@mouthpiece/engine/jobs` entry: avatar work the server and the CLI run outside any session,
// each in a short-lived child process (ipc/child-job.ts) — photo and video imports, drawn previews,
// the browsers' video encode — and the packs on disk those jobs write and read.
// Nothing reachable from here may load a native module or face-api into the process that imports it
// (packages/server/src/engine-entries.test.ts checks it): the jobs' own processes load them.
export { runVideoImport, type VideoImportRun, type FromVideoImport } from './video/video-import-client.js';
export { runPhotoImport, drawPreviews, type PreviewDrawing } from './avatar/avatar-jobs.js';
export {
  createAvatarPreviews,
  type AvatarPreviews,
  type AvatarPreviewsOptions,
} from './avatar/avatar-previews.js';
export {
  PhotoImportError,
  PHOTO_LIMITS,
  type PhotoImportErrorCode,
  type PhotoImportRequest,
} from './avatar/photo-import-errors.js';
export { readAvatarPacks, loadAvatarPack, BUILTIN_AVATARS_DIR, type AvatarPack } from './avatar/catalog.js';
export { rendererFiles, PackFileRole, BROWSER_VIDEO_CODEC, type PackFile } from './avatar/pack-files.js';
// ffmpeg in a child process, no native module: `mouthpiece avatars encode-video` runs it in the CLI
export { encodeVideoForBrowsers, VideoEncodeError, type EncodedVideoFile } from './video/browser-video.js';
export { FfmpegMissingError } from './video/ffmpeg.js';
export { VideoImportError, VIDEO_LIMITS, type VideoImportErrorCode } from './video/import-errors.js';
export { looksLikeVideo, fileLooksLikeVideo } from './video/sniff.js';
export type { ImportStage } from './video/video-import.js';
