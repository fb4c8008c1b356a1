/** A video avatar's thumbnail: the first idle frame, scaled down, as PNG. */
import { createCanvas } from '@napi-rs/canvas';

export async function previewPngOf(rgb: Uint8Array, side: number, previewPx: number): Promise<Buffer> {
  const frame = createCanvas(side, side);
  const ctx = frame.getContext('2d');
  const img = ctx.createImageData(side, side);
  for (let i = 0, p = 0; i < side * side; i++, p += 3) {
    img.data[i * 4] = rgb[p]!;
    img.data[i * 4 + 1] = rgb[p + 1]!;
    img.data[i * 4 + 2] = rgb[p + 2]!;
    img.data[i * 4 + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  const out = createCanvas(previewPx, previewPx);
  out.getContext('2d').drawImage(frame, 0, 0, previewPx, previewPx);
  return out.encode('png');
}
