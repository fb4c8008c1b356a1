/**
 * A pack's thumbnail (PNG): a photo or video pack's stored preview, else the avatar drawn at rest.
 */
import { readFile } from 'node:fs/promises';
import { createCanvas } from '@napi-rs/canvas';
import { REST_MOTION, REST_MOUTH } from '../face-state.js';
import { createAvatarRenderer } from '../render/avatar-renderer.js';
import { storedPreviewFile, type AvatarPack } from './catalog.js';

export const PREVIEW_PX = 256;

export async function previewPng(pack: AvatarPack): Promise<Buffer> {
  const stored = storedPreviewFile(pack);
  if (stored) return readFile(stored);
  const size = PREVIEW_PX * 2;
  const r = createAvatarRenderer(pack.manifest, { width: size, height: size }, pack.dir);
  try {
    const frame = createCanvas(size, size);
    const ctx = frame.getContext('2d');
    const img = ctx.createImageData(size, size);
    img.data.set(r.render({ mouth: REST_MOUTH, motion: REST_MOTION }));
    ctx.putImageData(img, 0, 0);
    const out = createCanvas(PREVIEW_PX, PREVIEW_PX);
    out.getContext('2d').drawImage(frame, 0, 0, PREVIEW_PX, PREVIEW_PX);
    return await out.encode('png');
  } finally {
    r.close();
  }
}
