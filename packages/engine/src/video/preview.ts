/** A video avatar's thumbnail: the first idle frame, scaled down, as PNG. */
import { createCanvas } from '@napi-rs/canvas';

/** `px` is RGB (3 bytes a pixel) or RGBA (4, alpha ignored). */
export async function previewPngOf(
  px: ArrayLike<number>,
  side: number,
  previewPx: number,
  channels: 3 | 4 = 3,
): Promise<Buffer> {
  const frame = createCanvas(side, side);
  const ctx = frame.getContext('2d');
  const img = ctx.createImageData(side, side);
  for (let i = 0, p = 0; i < side * side; i++, p += channels) {
    img.data[i * 4] = px[p]!;
    img.data[i * 4 + 1] = px[p + 1]!;
    img.data[i * 4 + 2] = px[p + 2]!;
    img.data[i * 4 + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  const out = createCanvas(previewPx, previewPx);
  out.getContext('2d').drawImage(frame, 0, 0, previewPx, previewPx);
  return out.encode('png');
}
