// Writes a contact sheet of a photo avatar pack: mouth shapes A–H and X, and a blink, as the photo
// renderer draws them, with a close-up of the lower face under each. Runs against the built
// dist/: `npx tsc -b && node packages/engine/scripts/photo-contact-sheet.mjs PACK_DIR OUT.png`.
// Make a pack first with `node packages/engine/scripts/photo-pack.mjs IMAGE ID PACKS_DIR`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCanvas, Image } from '@napi-rs/canvas';
import { loadAvatarPack } from '../dist/avatar/catalog.js';
import { REST_MOTION } from '../dist/face-state.js';
import { MOUTH_SHAPES } from '../dist/lipsync/mouth-shapes.js';
import { createAvatarRenderer } from '../dist/render/avatar-renderer.js';

const [dir, outFile] = process.argv.slice(2);
if (!dir || !outFile) {
  console.error('usage: photo-contact-sheet.mjs PACK_DIR OUT.png');
  process.exit(2);
}
const { manifest } = loadAvatarPack(dir);
const cells = [...'ABCDEFGHX'].map((v) => ({ label: v, mouth: MOUTH_SHAPES[v], blink: 0 }));
cells.push({ label: 'blink', mouth: MOUTH_SHAPES.X, blink: 1 });
const size = 256;
const cols = 5;
const r = createAvatarRenderer(manifest, { width: 512, height: 512 }, dir);
const portrait = new Image();
portrait.src = readFileSync(join(dir, manifest.image));
const scale = 512 / Math.min(portrait.width, portrait.height);
const [mx, my] = manifest.landmarks[62];
const sheet = createCanvas(cols * size, Math.ceil(cells.length / cols) * (size * 2 + 24));
const ctx = sheet.getContext('2d');
ctx.fillStyle = '#ffffff';
ctx.fillRect(0, 0, sheet.width, sheet.height);
const frame = createCanvas(512, 512);
const fctx = frame.getContext('2d');
for (const [i, cell] of cells.entries()) {
  const rgba = r.render({ mouth: cell.mouth, motion: { ...REST_MOTION, blink: cell.blink } });
  const img = fctx.createImageData(512, 512);
  img.data.set(rgba);
  fctx.putImageData(img, 0, 0);
  const x = (i % cols) * size;
  const y = Math.floor(i / cols) * (size * 2 + 24);
  ctx.drawImage(frame, 0, 0, 512, 512, x, y, size, size);
  // the close-up: the mouth, or the eyes for the blink
  const [cx, cy] = cell.blink ? manifest.landmarks[27] : [mx, my];
  ctx.drawImage(frame, cx * scale - 64, cy * scale - 64, 128, 128, x, y + size, size, size);
  ctx.fillStyle = '#222222';
  ctx.font = '16px sans-serif';
  ctx.fillText(cell.label, x + 8, y + size * 2 + 18);
  await new Promise((res) => setImmediate(res));
}
writeFileSync(outFile, sheet.toBuffer('image/png'));
console.log(outFile);
