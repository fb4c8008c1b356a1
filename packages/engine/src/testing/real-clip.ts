/**
 * The real talking-head clip the tests and benchmarks use (`../shared/fixtures/real-clips/` from
 * the repository's root; a test input only: never a built-in avatar, never in a committed
 * picture), and its video avatar pack, imported once through the real import process and cached
 * in `os.tmpdir()/mouthpiece-real-packs/<hash>` by a hash of the code that makes packs (the built
 * import and @mouthpiece/draw's video folder), so the test files that need it share one import.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { VideoAvatarManifest } from '../avatar/manifest.js';
import { runVideoImport } from '../host/video-import-client.js';
import { underCacheLock } from './cache-lock.js';

/** The repository's root (this file is packages/engine/{src,dist}/testing/real-clip.*). */
const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..', '..');
export const REAL_CLIPS_DIR = resolve(ROOT, '..', 'shared', 'fixtures', 'real-clips');
/** A man talking to the camera: 20.08 s, 1080×1920 portrait, 25 fps, HEVC + AAC (its README). */
export const REAL_CLIP = 'latentsync-demo2.mp4';

/** The clip's path; throws naming where it is looked for when it is missing. */
export function realClipFile(name = REAL_CLIP): string {
  const file = join(REAL_CLIPS_DIR, name);
  if (!existsSync(file))
    throw new Error(
      `The real test clip ${name} is missing: it is read from ../shared/fixtures/real-clips/ beside the repository (${REAL_CLIPS_DIR})`,
    );
  return file;
}

function packFingerprint(): string {
  const h = createHash('sha256');
  const add = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const f of readdirSync(dir).sort()) {
      const path = join(dir, f);
      if (statSync(path).isDirectory()) add(path);
      else if (f.endsWith('.js')) h.update(f).update(readFileSync(path));
    }
  };
  add(join(ROOT, 'packages', 'engine', 'dist', 'video'));
  add(join(ROOT, 'packages', 'draw', 'dist', 'video'));
  return h.digest('hex').slice(0, 12);
}

export interface RealClipPack {
  /** The pack's folder (its parent holds nothing else) and manifest. */
  dir: string;
  manifest: VideoAvatarManifest;
  /** Seconds the import took when it was made. */
  importSeconds: number;
}

/** The real clip imported as the video avatar `real-clip` (cached; made on first use, ≈ 20–40 s). */
export async function realClipPack(): Promise<RealClipPack> {
  const file = realClipFile();
  const cache = join(tmpdir(), 'mouthpiece-real-packs');
  await mkdir(cache, { recursive: true });
  const base = join(cache, packFingerprint());
  const dir = join(base, 'real-clip');
  const done = (): boolean => existsSync(join(dir, 'avatar.json'));
  const cached = (): Promise<RealClipPack> => {
    const manifest = JSON.parse(readFileSync(join(dir, 'avatar.json'), 'utf8')) as VideoAvatarManifest;
    const index = JSON.parse(readFileSync(join(dir, 'video.json'), 'utf8')) as {
      stats: { importSeconds: number };
    };
    return Promise.resolve({ dir, manifest, importSeconds: index.stats.importSeconds });
  };
  const make = async (): Promise<RealClipPack> => {
    const tmp = `${base}.${process.pid}.tmp`;
    await rm(tmp, { recursive: true, force: true });
    await mkdir(tmp, { recursive: true });
    const { manifest, stats } = await runVideoImport({ id: 'real-clip', name: 'Real clip', file }, tmp);
    await rm(base, { recursive: true, force: true });
    await rename(tmp, base);
    return { dir, manifest, importSeconds: Number(stats.importSeconds) };
  };
  return underCacheLock(`${base}.lock`, done, cached, make);
}
