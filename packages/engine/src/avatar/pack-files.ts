/**
 * The files of a pack a renderer outside the engine (the browser SDK's `render: 'client'`) needs
 * besides the manifest, per render kind (docs/design.md §13, docs/avatars.md). Pure data from the
 * manifest, no file access: the server's pack route serves exactly these names and nothing else.
 *
 *   vector   none: the manifest is the whole avatar
 *   sprites  the base picture, each mouth shape's picture, the blink pictures
 *   photo    the portrait (the texture); its 68 landmarks are in the manifest, and the mesh is
 *            derived from them (packages/draw/src/photo/photo-rig.ts: Delaunay over landmarks and frame points)
 *   video    video.json (the index), base.i420 (idle loop frames), mouths.i420 (mouth library);
 *            and, optional, the same frames as VP9 for browsers that decode it (base.ivf, mouths.ivf:
 *            video/browser-video.ts; packs imported before them have none, and are listed without)
 */
import { PackFileRole } from '@mouthpiece/protocol';
import type { AnyAvatarManifest } from './manifest.js';
import { VIDEO_FILES } from '../video/pack.js';

/** The WebCodecs codec string of a pack's encoded video files (video/browser-video.ts writes them). */
export const BROWSER_VIDEO_CODEC = 'vp09.00.30.08';

/** What a file is to the renderer: the protocol's roles (the pack listing's `role`). */
export { PackFileRole } from '@mouthpiece/protocol';

export interface PackFile {
  /** A plain file name in the pack folder (no folder part). */
  name: string;
  role: PackFileRole;
  /** Listed only when the pack has it (encoded alternatives; a missing required file is an error). */
  optional?: true;
  /** The raw file this one holds encoded: a renderer that can decode it needs that file no more. */
  encodes?: string;
  /** The WebCodecs codec string of an encoded file. */
  codec?: string;
}

/** The renderer's files of a pack, each name once, in a stable order. */
export function rendererFiles(m: AnyAvatarManifest): PackFile[] {
  const files: PackFile[] = [];
  const add = (name: string, role: PackFileRole, extra: Omit<PackFile, 'name' | 'role'> = {}): void => {
    if (!files.some((f) => f.name === name)) files.push({ name, role, ...extra });
  };
  switch (m.render) {
    case 'vector':
      break;
    case 'sprites':
      add(m.base, PackFileRole.base);
      for (const name of Object.values(m.mouth.shapes)) add(name, PackFileRole.mouth);
      for (const name of m.blink?.images ?? []) add(name, PackFileRole.blink);
      break;
    case 'photo':
      add(m.image, PackFileRole.texture);
      break;
    case 'video':
      add(VIDEO_FILES.index, PackFileRole.videoIndex);
      add(VIDEO_FILES.base, PackFileRole.baseFrames);
      add(VIDEO_FILES.mouths, PackFileRole.mouthLibrary);
      add(VIDEO_FILES.baseEncoded, PackFileRole.baseFramesEncoded, encoded(VIDEO_FILES.base));
      add(VIDEO_FILES.mouthsEncoded, PackFileRole.mouthLibraryEncoded, encoded(VIDEO_FILES.mouths));
      break;
  }
  return files;
}

const encoded = (raw: string): Omit<PackFile, 'name' | 'role'> => ({
  optional: true,
  encodes: raw,
  codec: BROWSER_VIDEO_CODEC,
});
