/**
 * Reads avatar packs: folders holding an `avatar.json`. Pure JSON reading (no native module), so
 * the server process can list avatars without loading the renderer. A later folder's pack
 * replaces an earlier one with the same id (operators can override built-ins).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AvatarInfo } from '@mouthpiece/protocol';
import { AvatarPackError, validateManifest, type AnyAvatarManifest } from './manifest.js';
import { validateSpritePack } from './sprite-pack.js';

/** The built-in packs (resolved from this file, so it works from `src` and `dist`). */
export const BUILTIN_AVATARS_DIR = fileURLToPath(new URL('../../avatars/', import.meta.url));

export interface AvatarPack {
  dir: string;
  manifest: AnyAvatarManifest;
}

export function loadAvatarPack(dir: string): AvatarPack {
  const file = join(dir, 'avatar.json');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new AvatarPackError(
      `${file}: ${err instanceof SyntaxError ? `not valid JSON (${err.message})` : 'cannot be read'}`,
    );
  }
  const manifest = validateManifest(raw, file);
  if (manifest.render === 'photo' && !existsSync(join(dir, manifest.image)))
    throw new AvatarPackError(`${file}: image ${manifest.image} is not in the pack folder`);
  if (manifest.render === 'sprites') validateSpritePack(manifest, dir, file);
  if (manifest.render === 'video')
    for (const f of ['video.json', 'base.i420', 'mouths.i420'])
      if (!existsSync(join(dir, f))) throw new AvatarPackError(`${file}: ${f} is not in the pack folder`);
  return { dir, manifest };
}

/** A photo or video pack's stored thumbnail (written by its import), if it has one. */
export function storedPreviewFile(pack: AvatarPack): string | undefined {
  const file = join(pack.dir, 'preview.png');
  return (pack.manifest.render === 'photo' || pack.manifest.render === 'video') && existsSync(file)
    ? file
    : undefined;
}

/** Every valid pack in the given folders, and the errors of the invalid ones. */
export function readAvatarPacks(dirs: readonly string[]): { packs: AvatarPack[]; errors: string[] } {
  const byId = new Map<string, AvatarPack>();
  const errors: string[] = [];
  for (const root of dirs) {
    if (!existsSync(root)) {
      errors.push(`${root}: avatar folder does not exist`);
      continue;
    }
    for (const entry of readdirSync(root, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      if (!entry.isDirectory() || !existsSync(join(root, entry.name, 'avatar.json'))) continue;
      try {
        const pack = loadAvatarPack(join(root, entry.name));
        byId.set(pack.manifest.id, pack);
      } catch (err) {
        errors.push(err instanceof Error ? err.message : String(err));
      }
    }
  }
  return { packs: [...byId.values()], errors };
}

export function readAvatarCatalog(
  dirs: readonly string[],
  size = { width: 512, height: 512 },
): { avatars: AvatarInfo[]; errors: string[] } {
  const { packs, errors } = readAvatarPacks(dirs);
  return { avatars: packs.map((p) => avatarInfo(p, size)), errors };
}

/** What the catalog shows of a pack, at the output size. */
export function avatarInfo(p: AvatarPack, size: { width: number; height: number }): AvatarInfo {
  return {
    id: p.manifest.id,
    name: p.manifest.name,
    render: p.manifest.render,
    ...(p.manifest.description ? { description: p.manifest.description } : {}),
    width: size.width,
    height: size.height,
  };
}
