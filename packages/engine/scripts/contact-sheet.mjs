// Writes docs/avatars/<id>-sheet.png for every built-in avatar: mouth shapes A–H and X, and a
// blink, as the renderer draws them. Runs against the built dist/: `npx tsc -b && node
// packages/engine/scripts/contact-sheet.mjs`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createCanvas } from '@napi-rs/canvas';
import { BUILTIN_AVATARS_DIR, readAvatarPacks } from '../dist/avatar/catalog.js';
import { REST_MOTION } from '../dist/face-state.js';
import { MOUTH_SHAPES } from '../dist/lipsync/mouth-shapes.js';
import { createRenderer } from '../dist/render/renderer.js';

const out = new URL('../../../docs/avatars/', import.meta.url);
mkdirSync(out, { recursive: true });
const cells = [...'ABCDEFGHX'].map((v) => ({ label: v, mouth: MOUTH_SHAPES[v], blink: 0 }));
cells.push({ label: 'blink', mouth: MOUTH_SHAPES.X, blink: 1 });
const size = 256;
const cols = 5;
for (const { manifest } of readAvatarPacks([BUILTIN_AVATARS_DIR]).packs) {
  const r = createRenderer(manifest, { width: 512, height: 512 });
  const sheet = createCanvas(cols * size, Math.ceil(cells.length / cols) * (size + 24));
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
    const y = Math.floor(i / cols) * (size + 24);
    ctx.drawImage(frame, 0, 0, 512, 512, x, y, size, size);
    ctx.fillStyle = '#222222';
    ctx.font = '16px sans-serif';
    ctx.fillText(cell.label, x + 8, y + size + 18);
    await new Promise((res) => setImmediate(res)); // let Skia's read-back buffers be freed
  }
  writeFileSync(new URL(`${manifest.id}-sheet.png`, out), sheet.toBuffer('image/png'));
  console.log(`docs/avatars/${manifest.id}-sheet.png`);
}
