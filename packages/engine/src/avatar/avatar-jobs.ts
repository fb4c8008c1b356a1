/**
 * Photo imports and preview drawings, each in a short-lived process of its own
 * (avatar/photo-import-main.ts, avatar/preview-main.ts over ipc/child-job.ts): both load Skia and
 * the import face-api, which the server and the CLI never do. Both are rare (an upload, the first
 * look at a drawn avatar), so a process per job costs little. No native modules here.
 */
import type { PhotoAvatarManifest } from './manifest.js';
import {
  PhotoImportError,
  type PhotoImportErrorCode,
  type PhotoImportRequest,
} from './photo-import-errors.js';
import { builtEntry, runJob } from '../ipc/child-job.js';

export interface PhotoImportJob {
  request: PhotoImportRequest;
  packsDir: string;
}
export interface PreviewJob {
  packDirs: string[];
}
/** One pack's drawn preview (a 256×256 PNG), or why it could not be drawn. */
export type PreviewDrawing = { dir: string; png: Uint8Array } | { dir: string; error: string };

/**
 * Makes a photo avatar pack `<packsDir>/<id>` from a portrait. Rejects with PhotoImportError when
 * the image is refused (the message says why), with Error when the import process fails.
 */
export function runPhotoImport(request: PhotoImportRequest, packsDir: string): Promise<PhotoAvatarManifest> {
  return runJob<PhotoImportJob, PhotoAvatarManifest, never, PhotoImportErrorCode>(
    builtEntry('avatar/photo-import-main.js'),
    { request, packsDir },
    { name: 'photo import', refused: (code, message) => new PhotoImportError(code, message) },
  );
}

/** Draws the previews of the packs in `packDirs`, all in one process. */
export function drawPreviews(packDirs: string[]): Promise<PreviewDrawing[]> {
  return runJob<PreviewJob, PreviewDrawing[]>(
    builtEntry('avatar/preview-main.js'),
    { packDirs },
    {
      name: 'preview drawing',
      refused: (_code, message) => new Error(`preview drawing refused: ${message}`), // it never refuses
    },
  );
}
