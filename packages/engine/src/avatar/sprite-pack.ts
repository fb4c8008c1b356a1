/**
 * Checks a sprite pack's pictures without decoding them (the server process validates packs and
 * loads no native module): each named file exists, is a PNG, and has the size its field needs.
 * Errors name the manifest, the field and the file.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { AvatarPackError, type SpriteAvatarManifest } from './manifest.js';

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** A PNG's size from its header, or why it is not one. */
export function pngSize(file: string): { width: number; height: number } | string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return 'is missing';
  }
  try {
    const head = Buffer.alloc(24);
    const n = readSync(fd, head, 0, 24, 0);
    if (n < 24 || PNG.some((b, i) => head[i] !== b) || head.toString('latin1', 12, 16) !== 'IHDR')
      return 'is not a PNG file';
    return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
  } finally {
    closeSync(fd);
  }
}

export function validateSpritePack(m: SpriteAvatarManifest, dir: string, manifestFile: string): void {
  const problems: string[] = [];
  const rectInside = (field: string, r: { x: number; y: number; width: number; height: number }): void => {
    if (r.x + r.width > m.size.width || r.y + r.height > m.size.height)
      problems.push(
        `${field} (${r.x},${r.y} ${r.width}×${r.height}) is outside size ${m.size.width}×${m.size.height}`,
      );
  };
  const check = (field: string, name: string, want: { width: number; height: number }): void => {
    const got = pngSize(join(dir, name));
    if (typeof got === 'string') problems.push(`${field}: ${name} ${got}`);
    else if (got.width !== want.width || got.height !== want.height)
      problems.push(
        `${field}: ${name} is ${got.width}×${got.height} px; it must be ${want.width}×${want.height}`,
      );
  };
  check('base', m.base, m.size);
  rectInside('mouth.anchor', m.mouth.anchor);
  for (const [shape, name] of Object.entries(m.mouth.shapes))
    check(`mouth.shapes.${shape}`, name, m.mouth.anchor);
  if (m.blink) {
    rectInside('blink.anchor', m.blink.anchor);
    m.blink.images.forEach((name, i) => check(`blink.images.${i}`, name, m.blink!.anchor));
  }
  if (problems.length) throw new AvatarPackError(`${manifestFile}: ${problems.slice(0, 8).join('; ')}`);
}
