/**
 * Avatar thumbnails for the control plane, without Skia in its process: a photo or video pack's
 * stored preview is read from its folder each time (an id can be removed and uploaded again); the
 * others are drawn in a child process (avatar/avatar-jobs.ts), every one not yet drawn in one batch,
 * and kept in memory per pack folder, so catalog reads do not start a process each.
 */
import { readFile } from 'node:fs/promises';
import { readAvatarPacks, storedPreviewFile, type AvatarPack } from './catalog.js';
import { drawPreviews, type PreviewDrawing } from './avatar-jobs.js';

export interface AvatarPreviewsOptions {
  /** The pack folders, in catalog order (asked at each call: packs come and go). */
  dirs: () => readonly string[];
  /** Draws previews (default: drawPreviews, in a child process). */
  draw?: ((packDirs: string[]) => Promise<PreviewDrawing[]>) | undefined;
}

export interface AvatarPreviews {
  /** The avatar's 256×256 PNG, or undefined when no pack has this id. */
  get(avatarId: string): Promise<Buffer | undefined>;
}

export function createAvatarPreviews(opts: AvatarPreviewsOptions): AvatarPreviews {
  const draw = opts.draw ?? drawPreviews;
  const drawn = new Map<string, Promise<Buffer>>();

  /** Starts one batch for every pack to draw that is not drawn or being drawn. */
  const drawMissing = (packs: readonly AvatarPack[]): void => {
    const missing = packs.filter((p) => !storedPreviewFile(p) && !drawn.has(p.dir)).map((p) => p.dir);
    if (missing.length === 0) return;
    const batch = draw(missing);
    for (const dir of missing) {
      const png = batch.then((answers) => {
        const a = answers.find((x) => x.dir === dir);
        if (!a || 'error' in a)
          throw new Error(`the preview of ${dir} was not drawn: ${a?.error ?? 'no answer'}`);
        return Buffer.from(a.png.buffer, a.png.byteOffset, a.png.byteLength);
      });
      drawn.set(dir, png);
      png.catch(() => drawn.delete(dir)); // drawn again at the next request
    }
  };

  return {
    async get(avatarId) {
      const { packs } = readAvatarPacks(opts.dirs());
      const pack = packs.find((p) => p.manifest.id === avatarId);
      if (!pack) return undefined;
      const stored = storedPreviewFile(pack);
      if (stored) return readFile(stored);
      if (!drawn.has(pack.dir)) drawMissing(packs);
      return drawn.get(pack.dir)!;
    },
  };
}
