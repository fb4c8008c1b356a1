/**
 * `mouthpiece avatars encode-video [ID]`: writes the VP9 files browsers download instead of a
 * video avatar's raw frames (base.ivf, mouths.ivf: engine video/browser-video.ts; docs/design.md
 * §13.6) into video packs imported before the import wrote them. Packs that have them are left
 * alone. ffmpeg encodes (about ten seconds a pack); the server serves the new files at the next
 * pack listing, and the SDK takes them from its next load.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  encodeVideoForBrowsers,
  FfmpegMissingError,
  VideoEncodeError,
  type AvatarPack,
} from '@mouthpiece/engine/jobs';
import type { CliIo } from './io.js';

const ENCODED = ['base.ivf', 'mouths.ivf'] as const;

/** Encodes the video packs among `packs` that lack their browser files (only `id` when given). */
export async function encodeVideoPacks(
  packs: readonly AvatarPack[],
  id: string | undefined,
  json: boolean,
  io: CliIo,
): Promise<number> {
  const chosen = packs.filter((p) => id === undefined || p.manifest.id === id);
  if (id !== undefined && chosen.length === 0) {
    io.stderr(`mouthpiece: no avatar "${id}" (mouthpiece avatars list)\n`);
    return 2;
  }
  const video = chosen.filter((p) => p.manifest.render === 'video');
  if (id !== undefined && video.length === 0) {
    io.stderr(`mouthpiece: avatar "${id}" is not a video avatar; only video avatars have frames to encode\n`);
    return 1;
  }
  const rows: Array<{ id: string; encoded: boolean; bytes?: number }> = [];
  for (const p of video) {
    if (ENCODED.every((name) => existsSync(join(p.dir, name)))) {
      rows.push({ id: p.manifest.id, encoded: false });
      if (!json) io.stdout(`${p.manifest.id}: already encoded\n`);
      continue;
    }
    try {
      const { base, mouths } = await encodeVideoForBrowsers(p.dir);
      rows.push({ id: p.manifest.id, encoded: true, bytes: base.bytes + mouths.bytes });
      if (!json)
        io.stdout(
          `${p.manifest.id}: wrote base.ivf (${base.frames} frames) and mouths.ivf (${mouths.frames} crops), ${kib(base.bytes + mouths.bytes)}\n`,
        );
    } catch (err) {
      if (!(err instanceof VideoEncodeError) && !(err instanceof FfmpegMissingError)) throw err;
      io.stderr(`mouthpiece: ${p.manifest.id}: ${err.message}\n`);
      return 3;
    }
  }
  if (json) io.stdout(`${JSON.stringify(rows)}\n`);
  else if (video.length === 0) io.stdout('no video avatars\n');
  return 0;
}

const kib = (bytes: number): string => `${Math.round(bytes / 1024)} KiB`;
