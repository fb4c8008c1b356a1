/**
 * Uploaded avatar packs (`<dataDir>/avatars`, one folder per avatar), shared by the admin API
 * (routes/admin-avatars.ts) and `mouthpiece avatars` (cli/avatars-command.ts): where they live,
 * which id a new one may take, and removal. Each caller words the answers for its audience.
 */
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AVATAR_ID_RULE, isAvatarId } from '@mouthpiece/protocol';
import type { Config } from '../config.js';

/** Uploaded avatar packs: one folder per avatar under the data dir. */
export function uploadedAvatarsDir(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, 'avatars');
}

export type NewAvatarIdCheck =
  | { ok: true }
  | { ok: false; reason: 'invalid'; message: string }
  | { ok: false; reason: 'exists'; message: string };

/**
 * Whether a new avatar may take this id: it follows the manifest's rule and names no avatar that
 * exists (`known`: the catalog's ids, and ids being imported now) nor a folder under `dir`.
 */
export function checkNewAvatarId(dir: string, id: string, known: (id: string) => boolean): NewAvatarIdCheck {
  if (!isAvatarId(id)) return { ok: false, reason: 'invalid', message: `must be ${AVATAR_ID_RULE}` };
  if (known(id) || existsSync(join(dir, id)))
    return {
      ok: false,
      reason: 'exists',
      message: `An avatar with id "${id}" already exists; choose another id`,
    };
  return { ok: true };
}

/**
 * Why an avatar cannot be removed: `read_only` (it exists, but built in or from
 * MOUTHPIECE_AVATARS_DIR) or `not_found`.
 */
export type RemoveAvatarResult = { ok: true } | { ok: false; reason: 'read_only' | 'not_found' };

/**
 * Removes the uploaded pack `id` under `dir`. It is renamed away first, so it disappears at once;
 * sessions using it keep their copy in memory. `known`: whether any avatar has this id.
 */
export async function removeUploadedAvatar(
  dir: string,
  id: string,
  known: (id: string) => boolean,
  nowMs: number = Date.now(),
): Promise<RemoveAvatarResult> {
  const target = join(dir, id);
  if (!isAvatarId(id) || !existsSync(join(target, 'avatar.json')))
    return { ok: false, reason: known(id) ? 'read_only' : 'not_found' };
  const gone = join(dir, `.removed-${id}-${nowMs}`);
  await rename(target, gone);
  await rm(gone, { recursive: true, force: true });
  return { ok: true };
}
