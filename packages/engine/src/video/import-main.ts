/**
 * The video import's own process (forked by video/video-import-client.ts): imports one clip and
 * ends. Progress, the answer and a refusal travel over IPC (ipc/child-job.ts), so neither the
 * server nor the CLI loads face-api or Skia, and a crash costs only this import.
 */
import { importVideoAvatar } from './video-import.js';
import { VideoImportError, type VideoImportErrorCode } from './import-errors.js';
import { serveJob } from '../ipc/child-job.js';
import type { VideoImportJob, VideoImportProgress, VideoImportRun } from './video-import-client.js';

serveJob<VideoImportJob, VideoImportRun, VideoImportProgress, VideoImportErrorCode>(
  ({ request, packsDir }, progress) =>
    importVideoAvatar(request, packsDir, (stage, fraction) => progress({ stage, fraction })),
  (err) => (err instanceof VideoImportError ? { code: err.code, message: err.message } : undefined),
);
