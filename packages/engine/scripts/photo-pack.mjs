// Makes a photo avatar pack from a portrait, as the admin API's upload does:
// `npx tsc -b && node packages/engine/scripts/photo-pack.mjs IMAGE ID PACKS_DIR [--scale K]`
// (--scale resizes the image first, e.g. to test a small face). Prints the manifest's path.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCanvas, Image } from '@napi-rs/canvas';
import { importPhotoAvatar } from '../dist/avatar/photo-import.js';

const [image, id, packsDir, flag, k] = process.argv.slice(2);
if (!image || !id || !packsDir) {
  console.error('usage: photo-pack.mjs IMAGE ID PACKS_DIR [--scale K]');
  process.exit(2);
}
let bytes = readFileSync(image);
if (flag === '--scale') {
  const img = new Image();
  img.src = bytes;
  const c = createCanvas(Math.round(img.width * Number(k)), Math.round(img.height * Number(k)));
  c.getContext('2d').drawImage(img, 0, 0, c.width, c.height);
  bytes = await c.encode('png');
}
await importPhotoAvatar({ id, name: id, image: bytes }, packsDir);
console.log(join(packsDir, id, 'avatar.json'));
