/**
 * Photos from phones are often stored sideways with an EXIF Orientation tag saying how to turn
 * them. Skia (under @napi-rs/canvas) turns the picture when it draws it, but `Image.width` and
 * `.height` are the stored, unturned size, so anything that draws into a box of that size
 * squashes a turned photo. The importer reads the tag (JPEG APP1, TIFF IFD0, tag 0x0112) and
 * draws the picture once, at its turned size, into a canvas it then works from.
 */
import { createCanvas, type Canvas, type Image } from '@napi-rs/canvas';

/** The EXIF orientation (1–8) of a JPEG, 1 when it has none. */
export function jpegOrientation(b: Uint8Array): number {
  if (b[0] !== 0xff || b[1] !== 0xd8) return 1;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let i = 2;
  while (i + 4 <= b.length && b[i] === 0xff) {
    const marker = b[i + 1]!;
    const len = view.getUint16(i + 2);
    if (marker === 0xda || len < 2) break; // start of scan: no more metadata
    const exif = i + 4;
    if (marker === 0xe1 && exif + 14 <= b.length && view.getUint32(exif) === 0x45786966 /* Exif */) {
      const tiff = exif + 6;
      const little = b[tiff] === 0x49;
      const ifd = tiff + view.getUint32(tiff + 4, little);
      if (ifd + 2 > b.length) return 1;
      const count = view.getUint16(ifd, little);
      for (let k = 0; k < count; k++) {
        const e = ifd + 2 + k * 12;
        if (e + 12 > b.length) return 1;
        if (view.getUint16(e, little) === 0x0112) {
          const v = view.getUint16(e + 8, little);
          return v >= 1 && v <= 8 ? v : 1;
        }
      }
      return 1;
    }
    i += 2 + len;
  }
  return 1;
}

/** The picture upright, at its turned size (the image itself for orientation 1). */
export function upright(img: Image, orientation: number): Image | Canvas {
  if (orientation <= 1 || orientation > 8) return img;
  const swap = orientation >= 5; // 5–8 turn by a quarter: width and height trade places
  const c = createCanvas(swap ? img.height : img.width, swap ? img.width : img.height);
  c.getContext('2d').drawImage(img, 0, 0); // Skia applies the orientation as it draws
  return c;
}
