/**
 * Runs a video avatar import in its own process (video/import-main.ts, over ipc/child-job.ts)
 * and relays its progress. No native modules here: the server and the CLI use it without loading
 * face-api or Skia.
 */
import type { VideoAvatarManifest } from '../avatar/manifest.js';
import type { ImportStage, VideoImportRequest } from './video-import.js';
import { VideoImportError, type VideoImportErrorCode } from './import-errors.js';
import { builtEntry, runJob, type JobMessage } from '../ipc/child-job.js';

export interface VideoImportRun {
  manifest: VideoAvatarManifest;
  stats: Record<string, number | string>;
}
export interface VideoImportJob {
  request: VideoImportRequest;
  packsDir: string;
}
export interface VideoImportProgress {
  stage: ImportStage;
  fraction: number;
}
export type FromVideoImport = JobMessage<VideoImportRun, VideoImportProgress, VideoImportErrorCode>;

/**
 * Imports `request.file` into `<packsDir>/<id>`. Rejects with VideoImportError when the clip is
 * refused (the message says why), with Error when the import process fails.
 */
export function runVideoImport(
  request: VideoImportRequest,
  packsDir: string,
  onProgress: (stage: ImportStage, fraction: number) => void = () => undefined,
): Promise<VideoImportRun> {
  return runJob<VideoImportJob, VideoImportRun, VideoImportProgress, VideoImportErrorCode>(
    builtEntry('video/import-main.js'),
    { request, packsDir },
    {
      name: 'video import',
      refused: (code, message) => new VideoImportError(code, message),
      onProgress: (p) => onProgress(p.stage, p.fraction),
    },
  );
}
