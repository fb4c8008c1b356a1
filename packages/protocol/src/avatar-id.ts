/**
 * What an avatar id may be: one rule for pack manifests (engine/src/avatar/manifest.ts), uploads
 * (POST /admin/v1/avatars) and `mouthpiece avatars` (server/src/avatars/uploaded-avatars.ts).
 */
export const AVATAR_ID_PATTERN = '^[a-z0-9][a-z0-9-]{0,63}$';
/** The same rule in words, for messages. */
export const AVATAR_ID_RULE =
  'lower-case letters, digits and dashes (at most 64), starting with a letter or digit';
const AVATAR_ID = new RegExp(AVATAR_ID_PATTERN);

export function isAvatarId(id: string): boolean {
  return AVATAR_ID.test(id);
}
