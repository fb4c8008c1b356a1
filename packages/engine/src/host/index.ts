// Entry point the control plane imports: types, the engine process pool and the catalog.
// Nothing reachable from here may load a native module (wrtc, canvas) or face-api into the server
// process (packages/server/src/engine-entries.test.ts checks it): work that needs them runs in a
// child process (child-job.ts).
export * from './types.js';
export { createEnginePool, engineMainPath, type EnginePoolOptions } from './pool.js';
export { engineCatalog } from './catalog.js';
export { DEFAULT_ICE_DENY, type CandidatePolicy } from '../rtc/candidate-filter.js';
export type { PortRange } from '../rtc/wrtc-media.js';
export {
  parseVoicesFile,
  ELEVENLABS_DEFAULT_MODEL,
  OPENAI_DEFAULT_MODEL,
  DEFAULT_SPEECH_CONFIG,
  type SpeechConfig,
  type VoiceEntry,
} from '../speech/voice-book.js';
export { probeLocalVoices, LocalVoiceUnusable, type LocalProbeResult } from '../speech/local-probe.js';
export { runVideoImport, type VideoImportRun, type FromVideoImport } from './video-import-client.js';
export { runPhotoImport, drawPreviews, type PreviewDrawing } from './avatar-jobs.js';
export { createAvatarPreviews, type AvatarPreviews, type AvatarPreviewsOptions } from './avatar-previews.js';
export {
  PhotoImportError,
  PHOTO_LIMITS,
  type PhotoImportErrorCode,
  type PhotoImportRequest,
} from '../avatar/photo-import-errors.js';
export { readAvatarPacks, loadAvatarPack, BUILTIN_AVATARS_DIR, type AvatarPack } from '../avatar/catalog.js';
export { rendererFiles, PackFileRole, BROWSER_VIDEO_CODEC, type PackFile } from '../avatar/pack-files.js';
// ffmpeg in a child process, no native module: `mouthpiece avatars encode-video` runs it in the CLI
export { encodeVideoForBrowsers, VideoEncodeError, type EncodedVideoFile } from '../video/browser-video.js';
export { FfmpegMissingError } from '../video/ffmpeg.js';
export { RenderKind } from '../avatar/manifest.js';
export { VideoImportError, VIDEO_LIMITS, type VideoImportErrorCode } from '../video/import-errors.js';
export { looksLikeVideo, fileLooksLikeVideo } from '../video/sniff.js';
export type { ImportStage } from '../video/video-import.js';
