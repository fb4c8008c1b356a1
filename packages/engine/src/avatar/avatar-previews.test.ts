import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILTIN_AVATARS_DIR } from './catalog.js';
import { blankImage } from '../testing/portrait-fixture.js';
import { drawPreviews, runPhotoImport, type PreviewDrawing } from './avatar-jobs.js';
import { createAvatarPreviews } from './avatar-previews.js';
import { PhotoImportError } from './photo-import-errors.js';

const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A drawer that answers each pack's folder name as its "PNG", and counts its batches. */
function countingDraw(fail: (dir: string) => boolean = () => false) {
  const batches: string[][] = [];
  return {
    batches,
    draw: (packDirs: string[]): Promise<PreviewDrawing[]> => {
      batches.push(packDirs);
      return Promise.resolve(
        packDirs.map((dir) => (fail(dir) ? { dir, error: 'broken pack' } : { dir, png: Buffer.from(dir) })),
      );
    },
  };
}

/** A folder holding one photo pack with a stored preview. */
function photoPacks(preview: string): { root: string; previewFile: string } {
  const root = mkdtempSync(join(tmpdir(), 'mp-previews-'));
  temps.push(root);
  const dir = join(root, 'astro');
  mkdirSync(dir);
  const manifest = {
    id: 'astro',
    name: 'Astro',
    version: 1,
    render: 'photo',
    image: 'portrait.png',
    landmarks: Array.from({ length: 68 }, (_, i) => [i, i]),
  };
  writeFileSync(join(dir, 'avatar.json'), JSON.stringify(manifest));
  writeFileSync(join(dir, 'portrait.png'), 'portrait');
  writeFileSync(join(dir, 'preview.png'), preview);
  return { root, previewFile: join(dir, 'preview.png') };
}

describe('avatar previews (host)', () => {
  it('draws every drawn avatar in one batch at the first request, then answers from memory', async () => {
    const { batches, draw } = countingDraw();
    const previews = createAvatarPreviews({ dirs: () => [BUILTIN_AVATARS_DIR], draw });
    const [amara, mei] = await Promise.all([previews.get('amara'), previews.get('mei')]);
    expect(amara?.toString()).toBe(join(BUILTIN_AVATARS_DIR, 'amara'));
    expect(mei?.toString()).toBe(join(BUILTIN_AVATARS_DIR, 'mei'));
    expect(batches).toHaveLength(1);
    expect(batches[0]!.map((d) => d.slice(BUILTIN_AVATARS_DIR.length)).sort()).toEqual([
      'amara',
      'jonas',
      'mei',
    ]);
    expect((await previews.get('jonas'))?.toString()).toBe(join(BUILTIN_AVATARS_DIR, 'jonas'));
    expect(await previews.get('nobody')).toBeUndefined();
    expect(batches).toHaveLength(1);
  });

  it("reads a photo pack's stored preview each time, never drawing it", async () => {
    const { batches, draw } = countingDraw();
    const { root, previewFile } = photoPacks('first');
    const previews = createAvatarPreviews({ dirs: () => [root], draw });
    expect((await previews.get('astro'))?.toString()).toBe('first');
    writeFileSync(previewFile, 'second'); // removed and uploaded again
    expect((await previews.get('astro'))?.toString()).toBe('second');
    expect(batches).toEqual([]);
  });

  it('a preview that could not be drawn fails its request and is drawn again at the next', async () => {
    let broken = true;
    const { batches, draw } = countingDraw((dir) => broken && dir.endsWith('amara'));
    const previews = createAvatarPreviews({ dirs: () => [BUILTIN_AVATARS_DIR], draw });
    await expect(previews.get('amara')).rejects.toThrow(/amara was not drawn: broken pack/);
    expect(await previews.get('mei')).toBeDefined(); // drawn in the same batch
    broken = false;
    expect((await previews.get('amara'))?.toString()).toBe(join(BUILTIN_AVATARS_DIR, 'amara'));
    expect(batches.map((b) => b.length)).toEqual([3, 1]);
  });
});

describe('avatar jobs in a child process', () => {
  it('draws previews as 256×256 PNGs, and says which pack could not be drawn', async () => {
    const missing = join(tmpdir(), 'mp-no-such-pack');
    const drawn = await drawPreviews([join(BUILTIN_AVATARS_DIR, 'amara'), missing]);
    const png = drawn[0]!;
    expect('png' in png && Buffer.from(png.png).subarray(1, 4).toString()).toBe('PNG');
    expect('png' in png && Buffer.from(png.png).readUInt32BE(16)).toBe(256);
    expect(drawn[1]).toMatchObject({ dir: missing, error: expect.stringMatching(/cannot be read/) });
  }, 30_000);

  it('refuses a portrait with the typed error and its code', async () => {
    const packs = mkdtempSync(join(tmpdir(), 'mp-photo-job-'));
    temps.push(packs);
    const err: unknown = await runPhotoImport(
      { id: 'blank', name: 'Blank', image: await blankImage(640, 480) },
      packs,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PhotoImportError);
    expect(err).toMatchObject({ code: 'no_face', message: expect.stringMatching(/No face/) });
  }, 30_000);
});
