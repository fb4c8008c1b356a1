// A photo avatar pack for benchmarks, made once per run from the test portrait (Debian's
// python3-skimage astronaut.png, scaled ×2) into a temporary folder, as an upload would be.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAvatarPack } from '../../packages/engine/dist/avatar/catalog.js';
import { importPhotoAvatar } from '../../packages/engine/dist/avatar/photo-import.js';
import { portraitFixture } from '../../packages/engine/dist/testing/portrait-fixture.js';

export async function photoBenchPack(id = 'photo') {
  const dir = mkdtempSync(join(tmpdir(), 'mp-bench-photo-'));
  await importPhotoAvatar(
    { id, name: 'Photo (test portrait)', image: await portraitFixture({ scale: 2 }) },
    dir,
  );
  return loadAvatarPack(join(dir, id));
}
