/**
 * The real talking-head clip (testing/real-clip.ts) as a video avatar pack, imported once through
 * the real import process and cached in `os.tmpdir()/mouthpiece-real-packs/<hash>` by a hash of
 * the code that makes packs (the built import, the renderer's folder whose selector bakes the
 * closed mouths, and @mouthpiece/draw's video folder), so the test files that need it share one
 * import.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { VideoAvatarManifest } from '../avatar/manifest.js';
import { runVideoImport } from '../video/video-import-client.js';
import { underCacheLock } from './cache-lock.js';
import { realClipPath } from './real-clip.js';

/** The repository's root (this file is packages/engine/{src,dist}/testing/real-clip-pack.*). */
const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..', '..');

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
  add(join(ROOT, 'packages', 'engine', 'dist', 'render'));
  add(join(ROOT, 'packages', 'draw', 'dist', 'video'));
  return h.digest('hex').slice(0, 12);
}

/** Packs made by other code versions and unused for a day are removed (each is ≈ 140 MB). */
async function pruneOtherVersions(cache: string, keep: string): Promise<void> {
  const now = Date.now();
  for (const name of readdirSync(cache)) {
    const path = join(cache, name);
    if (path === keep || name.endsWith('.lock')) continue;
    try {
      if (now - statSync(path).mtimeMs > 24 * 3600_000) await rm(path, { recursive: true, force: true });
    } catch {
      // gone meanwhile
    }
  }
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
  const file = realClipPath();
  const cache = join(tmpdir(), 'mouthpiece-real-packs');
  await mkdir(cache, { recursive: true });
  const base = join(cache, packFingerprint());
  const dir = join(base, 'real-clip');
  const done = (): boolean => existsSync(join(dir, 'avatar.json'));
  const cached = async (): Promise<RealClipPack> => {
    await utimes(base, new Date(), new Date()); // in use: kept by pruneOtherVersions
    const manifest = JSON.parse(readFileSync(join(dir, 'avatar.json'), 'utf8')) as VideoAvatarManifest;
    const index = JSON.parse(readFileSync(join(dir, 'video.json'), 'utf8')) as {
      stats: { importSeconds: number };
    };
    return { dir, manifest, importSeconds: index.stats.importSeconds };
  };
  const make = async (): Promise<RealClipPack> => {
    const tmp = `${base}.${process.pid}.tmp`;
    await rm(tmp, { recursive: true, force: true });
    await mkdir(tmp, { recursive: true });
    const { manifest, stats } = await runVideoImport({ id: 'real-clip', name: 'Real clip', file }, tmp);
    await rm(base, { recursive: true, force: true });
    await rename(tmp, base);
    await pruneOtherVersions(cache, base);
    return { dir, manifest, importSeconds: Number(stats.importSeconds) };
  };
  return underCacheLock(`${base}.lock`, done, cached, make);
}
