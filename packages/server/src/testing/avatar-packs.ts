/**
 * Avatar packs of every render kind for the pack route's tests, in `<dataDir>/avatars` (where
 * uploads live): a photo pack made by the real upload import (a child job, as the admin route
 * runs it), a sprite pack built from the built-in vector avatar amara, and a synthetic video
 * pack. The built-in vector avatars need nothing written. Made once per test file (seconds).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AvatarInfo } from '@mouthpiece/protocol';
import { BUILTIN_AVATARS_DIR, readAvatarPacks, runPhotoImport } from '@mouthpiece/engine/jobs';
import { FAKE_AVATARS, portraitFixture, writeSyntheticVideoPack } from '@mouthpiece/engine/testing';
import { uploadedAvatarsDir } from '../avatars/uploaded-avatars.js';

export const PACK_IDS = {
  vector: 'amara',
  photo: 'astro',
  sprites: 'amara-sprites',
  video: 'synthetic-video',
} as const;

/** The fake engine's catalog for these packs (and `gone`, an avatar with no pack on disk). */
export const PACK_AVATARS: AvatarInfo[] = [
  ...FAKE_AVATARS,
  ...(
    [
      [PACK_IDS.photo, 'photo'],
      [PACK_IDS.sprites, 'sprites'],
      [PACK_IDS.video, 'video'],
      ['gone', 'vector'],
    ] as const
  ).map(([id, render]) => ({ id, name: id, width: 512, height: 512, render })),
];

/** Writes the photo, sprite and video packs (or the video pack `only`) into `<dataDir>/avatars`. */
export async function writeTestPacks(
  dataDir: string,
  opts: { videoSize?: number; videoFrames?: number; only?: 'video' } = {},
): Promise<void> {
  const dir = uploadedAvatarsDir({ dataDir });
  mkdirSync(dir, { recursive: true });
  const amara = readAvatarPacks([BUILTIN_AVATARS_DIR]).packs.find((p) => p.manifest.id === 'amara')!;
  if (amara.manifest.render !== 'vector') throw new Error('amara is a vector avatar');
  // Skia for the sprite pictures: loaded in the test process only, never by the server's sources
  const { spritePackFromVector } = await import('@mouthpiece/engine/avatars');
  const video = writeSyntheticVideoPack(dir, {
    id: PACK_IDS.video,
    encoded: true,
    ...(opts.videoSize ? { size: opts.videoSize } : {}),
    ...(opts.videoFrames ? { baseFrames: opts.videoFrames } : {}),
  });
  if (opts.only === 'video') {
    await video;
    return;
  }
  await Promise.all([
    video,
    runPhotoImport(
      { id: PACK_IDS.photo, name: 'Astronaut', image: await portraitFixture({ scale: 2 }) },
      dir,
    ),
    spritePackFromVector(amara.manifest, dir, PACK_IDS.sprites),
  ]);
}

/** The folder a test pack lives in. */
export function testPackDir(dataDir: string, id: string): string {
  return id === PACK_IDS.vector ? join(BUILTIN_AVATARS_DIR, id) : join(uploadedAvatarsDir({ dataDir }), id);
}
