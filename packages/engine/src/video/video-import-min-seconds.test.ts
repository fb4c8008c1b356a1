/**
 * The import request's `minSeconds` (set only by benchmarks that import part of a short real
 * clip, bench/video-real/run.mjs): a 12 s clip is refused as too short by default, and with the
 * minimum lowered it passes that check and is judged on what follows (a grey clip has no face).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runVideoImport } from './video-import-client.js';
import type { VideoImportRequest } from './video-import.js';

const work = mkdtempSync(join(tmpdir(), 'mp-video-import-min-'));
const packs = join(work, 'packs');
mkdirSync(packs);

function greyClip(seconds: number): string {
  const file = join(work, `grey-${seconds}.mp4`);
  const r = spawnSync('ffmpeg', [
    ...['-v', 'error', '-y', '-f', 'lavfi', '-i', `color=c=gray:s=320x240:d=${seconds}:r=5`],
    file,
  ]);
  if (r.error) throw new Error(`ffmpeg did not run (${r.error.message}): apt-get install ffmpeg`);
  if (r.status !== 0) throw new Error(`ffmpeg: ${String(r.stderr)}`);
  return file;
}

const outcome = (request: VideoImportRequest): Promise<unknown> =>
  runVideoImport(request, packs).then(
    () => 'imported',
    (err: unknown) => err,
  );

describe('video import minSeconds', () => {
  it('refuses a 12 s clip as too short by default, and judges it further with minSeconds 10', async () => {
    const file = greyClip(12);
    expect(await outcome({ id: 'short', name: 'Short', file })).toMatchObject({ code: 'too_short' });
    expect(await outcome({ id: 'lowered', name: 'Lowered', file, minSeconds: 10 })).toMatchObject({
      code: 'no_face',
    });
    expect(readdirSync(packs).filter((f) => !f.startsWith('.'))).toEqual([]);
  }, 120_000);
});
