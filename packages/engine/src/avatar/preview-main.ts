/**
 * Draws a batch of avatar previews in its own process (forked by avatar/avatar-jobs.ts): the renderer
 * loads Skia, which the server process never does. Each pack answers a PNG or why it could not.
 */
import { serveJob } from '../ipc/child-job.js';
import type { PreviewDrawing, PreviewJob } from './avatar-jobs.js';
import { loadAvatarPack } from './catalog.js';
import { previewPng } from './preview.js';

serveJob<PreviewJob, PreviewDrawing[]>(
  async ({ packDirs }) => {
    const drawn: PreviewDrawing[] = [];
    for (const dir of packDirs) {
      try {
        drawn.push({ dir, png: await previewPng(loadAvatarPack(dir)) });
      } catch (err) {
        drawn.push({ dir, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return drawn;
  },
  () => undefined,
);
