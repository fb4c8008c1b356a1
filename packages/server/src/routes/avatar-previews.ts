/**
 * Avatar thumbnails for GET /v1/avatars/:id/preview.png: read from the pack folders (an uploaded
 * photo's stored preview, or a vector avatar drawn once) and vector ones kept in memory per pack folder.
 */
import type { AppContext } from '../app-types.js';
import { uploadedAvatarsDir } from '../avatars/uploaded-avatars.js';

export function previewUrl(avatarId: string): string {
  return `/v1/avatars/${encodeURIComponent(avatarId)}/preview.png`;
}

export function avatarPreviews(ctx: Pick<AppContext, 'config' | 'engine'>): {
  get(avatarId: string): Promise<Buffer | undefined>;
} {
  const cache = new Map<string, Promise<Buffer>>();
  return {
    async get(avatarId) {
      if (!ctx.engine.catalog().avatars.some((a) => a.id === avatarId)) return undefined;
      const avatars = await import('@mouthpiece/engine/avatars');
      const dirs = [
        avatars.BUILTIN_AVATARS_DIR,
        ...(ctx.config.avatarsDir ? [ctx.config.avatarsDir] : []),
        uploadedAvatarsDir(ctx.config),
      ];
      const pack = avatars.readAvatarPacks(dirs).packs.find((p) => p.manifest.id === avatarId);
      if (!pack) return undefined;
      // a photo's preview is a small file, read each time (an id can be removed and uploaded again)
      if (pack.manifest.render === 'photo') return avatars.previewPng(pack);
      const key = pack.dir;
      let png = cache.get(key);
      if (!png) {
        png = avatars.previewPng(pack);
        cache.set(key, png);
        png.catch(() => cache.delete(key));
      }
      return png;
    },
  };
}
