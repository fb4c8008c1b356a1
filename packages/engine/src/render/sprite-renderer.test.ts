import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_AVATARS_DIR, loadAvatarPack, readAvatarPacks } from '../avatar/catalog.js';
import type { AvatarManifest, SpriteAvatarManifest } from '../avatar/manifest.js';
import { spritePackFromVector } from '../avatar/sprite-from-vector.js';
import { REST_MOTION, type MouthParams } from '../face-state.js';
import { MOUTH_SHAPES } from '../lipsync/mouth-shapes.js';
import { createAvatarRenderer } from './avatar-renderer.js';
import { nearestShapes } from './sprite-renderer.js';

const SIZE = 512;
let packs: string;
let vector: AvatarManifest;
let sprites: SpriteAvatarManifest;
let dir: string;

beforeAll(async () => {
  packs = mkdtempSync(join(tmpdir(), 'mp-sprites-'));
  const amara = readAvatarPacks([BUILTIN_AVATARS_DIR]).packs.find((p) => p.manifest.id === 'amara')!;
  if (amara.manifest.render !== 'vector') throw new Error('amara is a vector avatar');
  vector = amara.manifest;
  await spritePackFromVector(vector, packs);
  const pack = loadAvatarPack(join(packs, 'amara-sprites'));
  if (pack.manifest.render !== 'sprites') throw new Error('not a sprite pack');
  sprites = pack.manifest;
  dir = pack.dir;
}, 60_000);
afterAll(() => rmSync(packs, { recursive: true, force: true }));

function frame(mouth: MouthParams, opts: { blink?: number; background?: string; vector?: boolean } = {}) {
  const r = opts.vector
    ? createAvatarRenderer(vector, { width: SIZE, height: SIZE }, undefined, { background: opts.background })
    : createAvatarRenderer(sprites, { width: SIZE, height: SIZE }, dir, { background: opts.background });
  try {
    return r.render({ mouth, motion: { ...REST_MOTION, blink: opts.blink ?? 0 } }).slice();
  } finally {
    r.close();
  }
}

type Rect = { x: number; y: number; width: number; height: number };
function meanDiff(
  a: Uint8ClampedArray,
  b: Uint8ClampedArray,
  r: Rect = { x: 0, y: 0, width: SIZE, height: SIZE },
) {
  let sum = 0;
  for (let y = r.y; y < r.y + r.height; y++)
    for (let x = r.x; x < r.x + r.width; x++) {
      const o = (y * SIZE + x) * 4;
      sum += Math.abs(a[o]! - b[o]!) + Math.abs(a[o + 1]! - b[o + 1]!) + Math.abs(a[o + 2]! - b[o + 2]!);
    }
  return sum / (3 * r.width * r.height);
}

describe('sprite avatars', () => {
  it('a pack built from a vector avatar draws what the vector renderer draws', () => {
    const face: Rect = { x: 196, y: 150, width: 120, height: 150 }; // inside the head
    for (const v of ['X', 'C', 'D', 'G'] as const)
      expect(meanDiff(frame(MOUTH_SHAPES[v]), frame(MOUTH_SHAPES[v], { vector: true }), face)).toBeLessThan(
        2,
      );
  });

  it('changes only the mouth anchor with the mouth, and cross-fades between the two nearest shapes', () => {
    const x = frame(MOUTH_SHAPES.X);
    const d = frame(MOUTH_SHAPES.D);
    const a = sprites.mouth.anchor;
    expect(meanDiff(x, d, a)).toBeGreaterThan(5);
    const outside = meanDiff(x, d) * SIZE * SIZE - meanDiff(x, d, a) * a.width * a.height;
    expect(Math.abs(outside)).toBeLessThan(1e-6);
    expect(nearestShapes(MOUTH_SHAPES.C)).toEqual([['C', 1]]);
    const half: MouthParams = { ...MOUTH_SHAPES.C };
    for (const k of Object.keys(half) as Array<keyof MouthParams>)
      half[k] = (MOUTH_SHAPES.C[k] + MOUTH_SHAPES.D[k]) / 2;
    const w = nearestShapes(half);
    expect(w.map(([v]) => v).sort()).toEqual(['C', 'D']);
    expect(w[0]![1]).toBeCloseTo(0.5, 5);
    const c = frame(MOUTH_SHAPES.C);
    const mid = frame(half);
    expect(meanDiff(mid, c, a)).toBeGreaterThan(1);
    expect(meanDiff(mid, d, a)).toBeGreaterThan(1);
    expect(meanDiff(mid, c, a) + meanDiff(mid, d, a)).toBeLessThanOrEqual(meanDiff(c, d, a) + 0.5);
  });

  it('blinks with the blink pictures', () => {
    const b = sprites.blink!.anchor;
    expect(meanDiff(frame(MOUTH_SHAPES.X), frame(MOUTH_SHAPES.X, { blink: 1 }), b)).toBeGreaterThan(5);
  });

  it('replaces the background with an exact flat colour (sprites and vector)', () => {
    for (const vectorToo of [false, true]) {
      const f = frame(MOUTH_SHAPES.X, { background: '#12ab34', vector: vectorToo });
      for (const [x, y] of [
        [2, 2],
        [SIZE - 3, 2],
        [20, 200],
        [SIZE - 20, 300],
      ] as const) {
        const o = (y * SIZE + x) * 4;
        expect([f[o], f[o + 1], f[o + 2]]).toEqual([0x12, 0xab, 0x34]);
      }
    }
  });

  it('refuses a pack whose pictures are missing, not PNG or the wrong size, naming field and file', () => {
    const pack = join(packs, 'amara-sprites');
    const file = join(pack, 'avatar.json');
    const good = readFileSync(file, 'utf8');
    const m = JSON.parse(good) as SpriteAvatarManifest;
    try {
      writeFileSync(join(pack, 'wrong.png'), readFileSync(join(pack, 'blink-half.png')));
      writeFileSync(join(pack, 'text.png'), 'hello');
      writeFileSync(
        file,
        JSON.stringify({
          ...m,
          mouth: { ...m.mouth, shapes: { ...m.mouth.shapes, C: 'wrong.png', X: 'gone.png', A: 'text.png' } },
        }),
      );
      expect(() => loadAvatarPack(pack)).toThrow(
        /mouth\.shapes\.A: text\.png is not a PNG file; mouth\.shapes\.C: wrong\.png is \d+×\d+ px; it must be \d+×\d+; mouth\.shapes\.X: gone\.png is missing/,
      );
      writeFileSync(
        file,
        JSON.stringify({ ...m, mouth: { ...m.mouth, anchor: { ...m.mouth.anchor, x: 500 } } }),
      );
      expect(() => loadAvatarPack(pack)).toThrow(/mouth\.anchor \(500,\d+ \d+×\d+\) is outside size 512×512/);
      const { blink: _blink, ...noBlink } = m;
      writeFileSync(
        file,
        JSON.stringify({ ...noBlink, mouth: { ...m.mouth, shapes: { ...m.mouth.shapes, H: undefined } } }),
      );
      expect(() => loadAvatarPack(pack)).toThrow(/mouth\.shapes\.H/);
    } finally {
      writeFileSync(file, good);
    }
    expect(loadAvatarPack(pack).manifest.id).toBe('amara-sprites');
  });

  it('renderRegion: the mouth and blink boxes laid over the first frame give each frame render() gives', () => {
    const byRegion = createAvatarRenderer(sprites, { width: SIZE, height: SIZE }, dir);
    const whole = createAvatarRenderer(sprites, { width: SIZE, height: SIZE }, dir);
    const shapes = Object.values(MOUTH_SHAPES);
    const kept = new Uint8ClampedArray(SIZE * SIZE * 4);
    let parts = 0;
    try {
      for (let n = 0; n < 24; n++) {
        const state = {
          mouth: shapes[Math.floor(n / 2) % shapes.length]!,
          // the head still for 20 frames (a blink among them), then moving a pixel a frame
          motion: { ...REST_MOTION, blink: n === 7 ? 0.6 : 0, headX: n < 20 ? 0 : n - 19 },
        };
        const changed = byRegion.renderRegion!(state);
        if (n % 2 === 1 && n !== 7 && n !== 8 && n < 20)
          expect(changed, `frame ${n}: the same face`).toBeNull();
        if (n === 7) expect(changed, 'a blink').not.toBeNull();
        if (!changed) continue;
        const { region, rgba } = changed;
        if (region.width * region.height < (SIZE * SIZE) / 4) parts++;
        for (let y = 0; y < region.height; y++)
          kept.set(
            rgba.subarray(y * region.width * 4, (y + 1) * region.width * 4),
            ((region.y + y) * SIZE + region.x) * 4,
          );
        expect(Buffer.from(kept).equals(Buffer.from(whole.render(state))), `frame ${n}`).toBe(true);
      }
      expect(parts, 'frames composed in part').toBeGreaterThan(8);
    } finally {
      byRegion.close();
      whole.close();
    }
  });
});
