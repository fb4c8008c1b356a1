// Builds a sprite pack from a vector avatar: `npx tsc -b && node
// packages/engine/scripts/sprite-pack.mjs AVATAR_ID PACKS_DIR [NEW_ID]` (AVATAR_ID is a built-in
// pack). Point MOUTHPIECE_AVATARS_DIR at PACKS_DIR to use it. See docs/avatars.md.
import { BUILTIN_AVATARS_DIR, readAvatarPacks } from '../dist/avatar/catalog.js';
import { spritePackFromVector } from '../dist/avatar/sprite-from-vector.js';

const [from, packsDir, id] = process.argv.slice(2);
const pack = readAvatarPacks([BUILTIN_AVATARS_DIR]).packs.find((p) => p.manifest.id === from);
if (!pack || pack.manifest.render !== 'vector' || !packsDir) {
  console.error('usage: sprite-pack.mjs VECTOR_AVATAR_ID PACKS_DIR [NEW_ID]');
  process.exit(2);
}
const m = await spritePackFromVector(pack.manifest, packsDir, id);
console.log(`${packsDir}/${m.id}/avatar.json`);
