/**
 * Finds an avatar's pack folder by id in the folders the engine reads (built-ins, the operator's
 * MOUTHPIECE_AVATARS_DIR, uploads), through `@mouthpiece/engine/host`'s catalog helpers only (JSON
 * and PNG headers: no native module). The id → folder map is read again when a root folder
 * changes (an upload renames a pack in, a removal renames it out); the pack itself is loaded
 * fresh on every lookup, so an edited manifest is served as it is now.
 */
import { statSync } from 'node:fs';
import {
  BUILTIN_AVATARS_DIR,
  loadAvatarPack,
  readAvatarPacks,
  type AvatarPack,
} from '@mouthpiece/engine/jobs';
import type { Config } from '../config.js';
import { uploadedAvatarsDir } from './uploaded-avatars.js';

/** The pack folders, in the engine's order (a later folder's pack wins over an earlier one's). */
export function avatarPackDirs(config: Pick<Config, 'avatarsDir' | 'dataDir'>): string[] {
  return [BUILTIN_AVATARS_DIR, ...(config.avatarsDir ? [config.avatarsDir] : []), uploadedAvatarsDir(config)];
}

export interface PackLocator {
  /** The avatar's pack as it is on disk now, or undefined when no valid pack has this id. */
  find(avatarId: string): AvatarPack | undefined;
}

export function createPackLocator(dirs: () => readonly string[]): PackLocator {
  let stamp = '';
  let byId = new Map<string, string>();
  const rescan = (roots: readonly string[], now: string): void => {
    byId = new Map(readAvatarPacks(roots).packs.map((p) => [p.manifest.id, p.dir]));
    stamp = now;
  };
  const load = (avatarId: string): AvatarPack | undefined => {
    const dir = byId.get(avatarId);
    if (dir === undefined) return undefined;
    try {
      const pack = loadAvatarPack(dir);
      return pack.manifest.id === avatarId ? pack : undefined;
    } catch {
      return undefined; // broken or gone since the scan
    }
  };
  return {
    find(avatarId) {
      const roots = dirs();
      const now = rootsStamp(roots);
      if (now !== stamp) rescan(roots, now);
      const pack = load(avatarId);
      if (pack || now !== stamp) return pack;
      // changed inside a folder without touching the roots (an edited manifest): look once more
      rescan(roots, now);
      return load(avatarId);
    },
  };
}

function rootsStamp(roots: readonly string[]): string {
  return roots
    .map((root) => {
      try {
        const s = statSync(root);
        return `${root}@${s.ino}:${s.mtimeMs}`;
      } catch {
        return `${root}@-`;
      }
    })
    .join('|');
}
