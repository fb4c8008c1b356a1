import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILTIN_AVATARS_DIR, loadAvatarPack, readAvatarCatalog } from './catalog.js';
import { AvatarPackError, vectorManifest } from './manifest.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const base = JSON.parse(readFileSync(join(BUILTIN_AVATARS_DIR, 'amara', 'avatar.json'), 'utf8')) as Record<
  string,
  unknown
>;

function pack(root: string, name: string, manifest: unknown): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'avatar.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
  return dir;
}

describe('avatar packs', () => {
  it('the built-in packs are valid and differ', () => {
    const { avatars, errors } = readAvatarCatalog([BUILTIN_AVATARS_DIR]);
    expect(errors).toEqual([]);
    expect(avatars.map((a) => a.id).sort()).toEqual(['amara', 'jonas', 'mei']);
    const manifests = avatars.map((a) =>
      vectorManifest(loadAvatarPack(join(BUILTIN_AVATARS_DIR, a.id)).manifest),
    );
    expect(new Set(manifests.map((m) => m.hair.style)).size).toBe(3);
    expect(new Set(manifests.map((m) => m.skin.tone)).size).toBe(3);
    expect(new Set(manifests.map((m) => m.clothing.style)).size).toBe(3);
  });

  it('rejects a bad manifest with the file and the field named', () => {
    const root = mkdtempSync(join(tmpdir(), 'mp-avatar-'));
    dirs.push(root);
    const dir = pack(root, 'bad', {
      ...base,
      id: 'bad',
      skin: { tone: 'brown', shadow: '#000000', blush: '#000000' },
    });
    expect(() => loadAvatarPack(dir)).toThrow(AvatarPackError);
    expect(() => loadAvatarPack(dir)).toThrow(/bad\/avatar\.json: skin\.tone must be a colour like #a0522d/);
    const broken = pack(root, 'broken', '{ not json');
    expect(() => loadAvatarPack(broken)).toThrow(/not valid JSON/);
    const missing = pack(root, 'missing', { ...base, id: 'missing', hair: undefined });
    expect(() => loadAvatarPack(missing)).toThrow(/hair/);
  });

  it('operator folders add packs, override built-ins by id, and report invalid ones', () => {
    const root = mkdtempSync(join(tmpdir(), 'mp-avatar-'));
    dirs.push(root);
    pack(root, 'zed', { ...base, id: 'zed', name: 'Zed' });
    pack(root, 'amara2', { ...base, id: 'amara', name: 'Amara (custom)' });
    pack(root, 'oops', { ...base, id: 'Oops!' });
    const { avatars, errors } = readAvatarCatalog([BUILTIN_AVATARS_DIR, root]);
    expect(avatars.find((a) => a.id === 'zed')?.name).toBe('Zed');
    expect(avatars.find((a) => a.id === 'amara')?.name).toBe('Amara (custom)');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/oops\/avatar\.json: id/);
    expect(readAvatarCatalog(['/nonexistent']).errors[0]).toMatch(/does not exist/);
    const typo = pack(root, 'typo', { ...base, id: 'typo', clothes: {} });
    expect(() => loadAvatarPack(typo)).toThrow(/clothes/);
  });

  it('the worked example in docs/avatars.md validates', () => {
    const docs = new URL('../../../../docs/avatars/example-pack/', import.meta.url).pathname;
    expect(readAvatarCatalog([docs])).toEqual({
      avatars: [expect.objectContaining({ id: 'nadia' })],
      errors: [],
    });
  });
});
