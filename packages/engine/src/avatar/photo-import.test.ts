import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas, Image } from '@napi-rs/canvas';
import { afterAll, describe, expect, it } from 'vitest';
import { portraitFixture } from '../testing/portrait-fixture.js';
import { jpegOrientation, upright } from './exif-orientation.js';
import { importPhotoAvatar } from './photo-import.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A JPEG with an EXIF APP1 segment holding only the orientation tag. */
function withOrientation(jpeg: Buffer, orientation: number, little = false): Buffer {
  const u16 = (v: number) => (little ? [v & 255, v >> 8] : [v >> 8, v & 255]);
  const u32 = (v: number) => (little ? [v & 255, 0, 0, 0] : [0, 0, 0, v & 255]);
  const tiff = Buffer.from([
    ...(little ? [0x49, 0x49] : [0x4d, 0x4d]),
    ...u16(42),
    ...u32(8),
    ...u16(1),
    ...u16(0x0112),
    ...u16(3),
    ...u32(1),
    ...u16(orientation),
    0,
    0,
    ...u32(0),
  ]);
  const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const app1 = Buffer.from([0xff, 0xe1, (payload.length + 2) >> 8, (payload.length + 2) & 255]);
  return Buffer.concat([jpeg.subarray(0, 2), app1, payload, jpeg.subarray(2)]);
}

describe('EXIF orientation', () => {
  it('is read from JPEGs (either byte order) and applied', async () => {
    const c = createCanvas(300, 100);
    const ctx = c.getContext('2d');
    ctx.fillStyle = '#ff0000';
    ctx.fillRect(0, 0, 150, 100);
    ctx.fillStyle = '#0000ff';
    ctx.fillRect(150, 0, 150, 100);
    const jpeg = await c.encode('jpeg', 95);
    expect(jpegOrientation(jpeg)).toBe(1);
    expect(jpegOrientation(await c.encode('png'))).toBe(1);
    expect(jpegOrientation(withOrientation(jpeg, 6))).toBe(6);
    expect(jpegOrientation(withOrientation(jpeg, 8, true))).toBe(8);
    const img = new Image();
    img.src = withOrientation(jpeg, 6);
    const up = upright(img, 6);
    expect([up.width, up.height]).toEqual([100, 300]);
    const u = createCanvas(100, 300);
    const uctx = u.getContext('2d');
    uctx.drawImage(up, 0, 0);
    const px = (x: number, y: number) => [...uctx.getImageData(x, y, 1, 1).data.slice(0, 3)];
    // turned a quarter clockwise: the left (red) half is now on top
    expect(px(50, 20)[0]).toBeGreaterThan(200);
    expect(px(50, 280)[2]).toBeGreaterThan(200);
  });

  it('a portrait stored sideways with orientation 6 is imported as if stored upright', async () => {
    const src = new Image();
    src.src = await portraitFixture({ scale: 2 });
    // not square, so a turned picture squashed into the stored size would show
    const plain = createCanvas(src.width, Math.round(src.height * 0.8));
    plain.getContext('2d').drawImage(src, 0, 0);
    // stored turned a quarter anticlockwise, as a phone held sideways does
    const c = createCanvas(plain.height, plain.width);
    const ctx = c.getContext('2d');
    ctx.setTransform(0, -1, 1, 0, 0, plain.width);
    ctx.drawImage(plain, 0, 0);
    const packs = mkdtempSync(join(tmpdir(), 'mp-exif-'));
    dirs.push(packs);
    const upright = await importPhotoAvatar(
      { id: 'upright', name: 'U', image: await plain.encode('jpeg', 92) },
      packs,
    );
    const sideways = await importPhotoAvatar(
      { id: 'sideways', name: 'S', image: withOrientation(await c.encode('jpeg', 92), 6) },
      packs,
    );
    for (const i of [8, 30, 36, 45, 48, 54, 62])
      for (const k of [0, 1])
        expect(Math.abs(sideways.landmarks[i]![k]! - upright.landmarks[i]![k]!)).toBeLessThan(4);
  }, 60_000);
});
