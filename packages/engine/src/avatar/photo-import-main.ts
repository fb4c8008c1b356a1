/**
 * A photo import's own process (forked by avatar/avatar-jobs.ts): decodes the portrait with Skia,
 * finds the face with face-api (in a worker thread), writes the pack and ends, so neither the
 * server nor the CLI loads either.
 */
import { serveJob } from '../ipc/child-job.js';
import type { PhotoImportJob } from './avatar-jobs.js';
import type { PhotoAvatarManifest } from './manifest.js';
import { importPhotoAvatar } from './photo-import.js';
import { PhotoImportError, type PhotoImportErrorCode } from './photo-import-errors.js';

serveJob<PhotoImportJob, PhotoAvatarManifest, never, PhotoImportErrorCode>(
  ({ request, packsDir }) => importPhotoAvatar(request, packsDir),
  (err) => (err instanceof PhotoImportError ? { code: err.code, message: err.message } : undefined),
);
