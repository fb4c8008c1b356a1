/**
 * The video import's own process (forked by host/video-import-client.ts): imports one clip and
 * ends. Progress, the answer and a refusal travel over IPC, so neither the server nor the CLI
 * loads face-api or Skia, and a crash costs only this import.
 */
import { importVideoAvatar, type VideoImportRequest } from './video-import.js';
import { VideoImportError } from './import-errors.js';
import type { FromVideoImport } from '../host/video-import-client.js';

const send = (m: FromVideoImport): Promise<void> =>
  new Promise((resolve) => (process.connected ? process.send!(m, () => resolve()) : resolve()));

process.once('message', (m: { request: VideoImportRequest; packsDir: string }) => {
  importVideoAvatar(
    m.request,
    m.packsDir,
    (stage, fraction) => void send({ kind: 'progress', stage, fraction }),
  ).then(
    async ({ manifest, stats }) => {
      await send({ kind: 'done', manifest, stats });
      process.exit(0);
    },
    async (err: unknown) => {
      await send(
        err instanceof VideoImportError
          ? { kind: 'refused', code: err.code, message: err.message }
          : { kind: 'failed', message: err instanceof Error ? (err.stack ?? err.message) : String(err) },
      );
      process.exit(0);
    },
  );
});
process.on('disconnect', () => process.exit(1));
