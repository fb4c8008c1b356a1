import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkNewAvatarId, removeUploadedAvatar, uploadedAvatarsDir } from './uploaded-avatars.js';

/** A data dir whose avatars folder holds the pack `kept` and a folder `broken` with no manifest. */
function avatarsDir(): string {
  const dir = uploadedAvatarsDir({ dataDir: mkdtempSync(join(tmpdir(), 'mp-avatars-')) });
  mkdirSync(join(dir, 'kept'), { recursive: true });
  writeFileSync(join(dir, 'kept', 'avatar.json'), '{}');
  mkdirSync(join(dir, 'broken'));
  return dir;
}
const builtIn = (id: string): boolean => id === 'amara' || id === 'kept';

describe('uploaded avatars (shared by the admin API and the CLI)', () => {
  it('a new id follows the manifest rule and names no avatar and no folder', () => {
    const dir = avatarsDir();
    expect(checkNewAvatarId(dir, 'fresh-1', builtIn)).toEqual({ ok: true });
    expect(checkNewAvatarId(dir, 'Fresh', builtIn)).toMatchObject({ ok: false, reason: 'invalid' });
    expect(checkNewAvatarId(dir, '../x', builtIn)).toMatchObject({ ok: false, reason: 'invalid' });
    for (const id of ['amara', 'kept', 'broken'])
      expect(checkNewAvatarId(dir, id, builtIn)).toEqual({
        ok: false,
        reason: 'exists',
        message: `An avatar with id "${id}" already exists; choose another id`,
      });
  });

  it('removes an uploaded pack and leaves nothing behind; refuses others with the reason', async () => {
    const dir = avatarsDir();
    expect(await removeUploadedAvatar(dir, 'amara', builtIn)).toEqual({ ok: false, reason: 'read_only' });
    expect(await removeUploadedAvatar(dir, 'nobody', builtIn)).toEqual({ ok: false, reason: 'not_found' });
    expect(await removeUploadedAvatar(dir, 'broken', builtIn)).toEqual({ ok: false, reason: 'not_found' });
    expect(await removeUploadedAvatar(dir, '../kept', () => false)).toEqual({
      ok: false,
      reason: 'not_found',
    });
    expect(await removeUploadedAvatar(dir, 'kept', builtIn)).toEqual({ ok: true });
    expect(existsSync(join(dir, 'kept'))).toBe(false);
    expect(readdirSync(dir)).toEqual(['broken']);
  });
});
