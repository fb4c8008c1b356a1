/**
 * The test portrait: `skimage/data/astronaut.png` from Debian's python3-skimage (a public-domain
 * NASA photo). A test fixture only: never a built-in avatar, never in a committed picture.
 * Its face is about 93 px across; tests scale it up (×2) for a face large enough to animate.
 */
import { existsSync, readFileSync } from 'node:fs';

export const PORTRAIT_FIXTURE = '/usr/lib/python3/dist-packages/skimage/data/astronaut.png';

/** The fixture's path; throws saying what to install when it is missing. */
export function portraitFixturePath(): string {
  if (!existsSync(PORTRAIT_FIXTURE))
    throw new Error(`${PORTRAIT_FIXTURE} is missing: install it with "apt-get install -y python3-skimage"`);
  return PORTRAIT_FIXTURE;
}

/**
 * The fixture as PNG bytes, scaled by `scale`, `copies` times side by side (several faces), or
 * as a JPEG.
 */
export async function portraitFixture(
  opts: { scale?: number; copies?: number; format?: 'png' | 'jpeg' } = {},
): Promise<Buffer> {
  const { scale = 1, copies = 1, format = 'png' } = opts;
  const { createCanvas, Image } = await import('@napi-rs/canvas'); // not loaded by the fakes' users
  const img = new Image();
  img.src = readFileSync(portraitFixturePath());
  const w = Math.round(img.width * scale);
  const h = Math.round(img.height * scale);
  const canvas = createCanvas(w * copies, h);
  const ctx = canvas.getContext('2d');
  for (let i = 0; i < copies; i++) ctx.drawImage(img, i * w, 0, w, h);
  return format === 'png' ? canvas.encode('png') : canvas.encode('jpeg', 92);
}

/** A plain image of the given size (no face in it). */
export async function blankImage(width: number, height: number, colour = '#8899aa'): Promise<Buffer> {
  const { createCanvas } = await import('@napi-rs/canvas');
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = colour;
  ctx.fillRect(0, 0, width, height);
  return canvas.encode('png');
}
