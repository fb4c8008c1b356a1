/**
 * Runs a video avatar import in its own process (video/import-main.ts) and relays its progress.
 * No native modules here: the server and the CLI use it without loading face-api or Skia.
 */
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { VideoAvatarManifest } from '../avatar/manifest.js';
import type { ImportStage, VideoImportRequest } from '../video/video-import.js';
import { VideoImportError, type VideoImportErrorCode } from '../video/import-errors.js';

export type FromVideoImport =
  | { kind: 'progress'; stage: ImportStage; fraction: number }
  | { kind: 'done'; manifest: VideoAvatarManifest; stats: Record<string, number | string> }
  | { kind: 'refused'; code: VideoImportErrorCode; message: string }
  | { kind: 'failed'; message: string };

export interface VideoImportRun {
  manifest: VideoAvatarManifest;
  stats: Record<string, number | string>;
}

function mainPath(): string {
  const here = fileURLToPath(import.meta.url);
  const file = here.endsWith('.ts')
    ? here.replace(/\/src\/host\/video-import-client\.ts$/, '/dist/video/import-main.js')
    : fileURLToPath(new URL('../video/import-main.js', import.meta.url));
  if (!existsSync(file)) throw new Error(`${file} is missing: build first (npx tsc -b)`);
  return file;
}

/**
 * Imports `request.file` into `<packsDir>/<id>`. Rejects with VideoImportError when the clip is
 * refused (the message says why), with Error when the import process fails.
 */
export function runVideoImport(
  request: VideoImportRequest,
  packsDir: string,
  onProgress: (stage: ImportStage, fraction: number) => void = () => undefined,
): Promise<VideoImportRun> {
  const child = fork(mainPath(), [], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
  const stderr: Buffer[] = [];
  child.stderr?.on('data', (d: Buffer) => stderr.length < 50 && stderr.push(d));
  let answer: FromVideoImport | undefined;
  return new Promise<VideoImportRun>((resolve, reject) => {
    child.on('message', (m: FromVideoImport) => {
      if (m.kind === 'progress') onProgress(m.stage, m.fraction);
      else answer = m;
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (answer?.kind === 'done') resolve({ manifest: answer.manifest, stats: answer.stats });
      else if (answer?.kind === 'refused') reject(new VideoImportError(answer.code, answer.message));
      else
        reject(
          new Error(
            answer?.kind === 'failed'
              ? `video import failed: ${answer.message}`
              : `video import process ended (${signal ?? code}): ${Buffer.concat(stderr).toString('utf8').slice(-500)}`,
          ),
        );
    });
    child.send({ request, packsDir });
  });
}
