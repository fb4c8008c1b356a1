/**
 * Real footage for the video import's tests and benchmarks: the shared clip of a real man talking
 * (`../shared/fixtures/real-clips/latentsync-demo2.mp4` from the repository's root, its README
 * beside it: a test input only, never committed, never a picture in the repository) and clips
 * made from it by Debian's ffmpeg the way phones and editors write them: cut short, rotated by
 * metadata, at other frame rates, with a varying rate, in 10-bit HDR, padded to landscape, odd
 * sizes. Each is made once and cached in `os.tmpdir()/mouthpiece-clips/real-<hash>.<ext>`, keyed
 * by its recipe and the source's size and time, so test files and benchmarks share them.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The fixture's path relative to the repository's root. */
export const REAL_CLIP_PATH = '../shared/fixtures/real-clips/latentsync-demo2.mp4';

/** The real clip's absolute path; throws naming where it is looked for when it is missing. */
export function realClipPath(): string {
  // this file is packages/engine/{src,dist}/testing/real-clip.{ts,js}
  const root = fileURLToPath(new URL('../../../../', import.meta.url));
  const file = join(root, REAL_CLIP_PATH);
  if (!existsSync(file))
    throw new Error(
      `the real test clip is missing: put latentsync-demo2.mp4 (with its README) at ${REAL_CLIP_PATH} from the repository's root (${file})`,
    );
  return file;
}

/**
 * A clip made from the real one: each step is ffmpeg's arguments between its input (`-i` of the
 * previous step's file, the fixture for the first) and its output file. `ext` is the output's
 * container. Answers the cached file's path, making it first when needed.
 */
export function realClipVariant(steps: string[][], ext: 'mp4' | 'mov' | 'webm' | 'mkv' = 'mp4'): string {
  const source = realClipPath();
  const { size, mtimeMs } = statSync(source);
  const key = createHash('sha256')
    .update(JSON.stringify({ steps, ext, size, mtimeMs }))
    .digest('hex')
    .slice(0, 16);
  const dir = join(tmpdir(), 'mouthpiece-clips');
  const file = join(dir, `real-${key}.${ext}`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  let input = source;
  const temps: string[] = [];
  try {
    for (const [k, step] of steps.entries()) {
      const out = join(dir, `.real-${key}-${process.pid}-${k}.${ext}`);
      temps.push(out);
      const r = spawnSync(
        'ffmpeg',
        ['-hide_banner', '-v', 'error', '-nostdin', '-y', '-i', input, ...step, out],
        {
          encoding: 'utf8',
        },
      );
      if (r.error)
        throw new Error(`ffmpeg did not run (${r.error.message}): install it with "apt-get install ffmpeg"`);
      if (r.status !== 0) throw new Error(`ffmpeg ${step.join(' ')} failed: ${r.stderr.trim()}`);
      input = out;
    }
    renameSync(input, file);
  } finally {
    for (const t of temps) rmSync(t, { force: true });
  }
  return file;
}
