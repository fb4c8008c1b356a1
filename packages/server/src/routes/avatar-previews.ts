/**
 * Avatar thumbnails for GET /v1/avatars/:id/preview.png, from the pack folders the engine reads:
 * an uploaded photo's or clip's stored preview, or a drawn one (drawn in a child process and kept
 * in memory: the server process never loads Skia; @mouthpiece/engine/host avatar-previews.ts).
 */
import { BUILTIN_AVATARS_DIR, createAvatarPreviews, type AvatarPreviews } from '@mouthpiece/engine/jobs';
import type { AppContext } from '../app-types.js';
import { uploadedAvatarsDir } from '../avatars/uploaded-avatars.js';

export function previewUrl(avatarId: string): string {
  return `/v1/avatars/${encodeURIComponent(avatarId)}/preview.png`;
}

export function avatarPreviews(ctx: Pick<AppContext, 'config' | 'engine'>): AvatarPreviews {
  const previews = createAvatarPreviews({
    dirs: () => [
      BUILTIN_AVATARS_DIR,
      ...(ctx.config.avatarsDir ? [ctx.config.avatarsDir] : []),
      uploadedAvatarsDir(ctx.config),
    ],
  });
  return {
    async get(avatarId) {
      if (!ctx.engine.catalog().avatars.some((a) => a.id === avatarId)) return undefined;
      return previews.get(avatarId);
    },
  };
}
