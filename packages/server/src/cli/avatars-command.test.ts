import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTalkingClip, portraitFixture } from '@mouthpiece/engine/testing';
import { runCliCaptured } from '../testing/cli-run.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const cli = runCliCaptured;

describe('mouthpiece avatars', () => {
  it('tells a video by its content, not its name: a clip named .png becomes a video avatar, with progress', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mp-cli-avatars-'));
    dirs.push(dir);
    const clip = await makeTalkingClip({ durationS: 22 });
    const named = join(dir, 'not-a-picture.png');
    copyFileSync(clip.file, named);
    const add = await cli(['avatars', 'add', named, '--id', 'talker', '--name', 'Talker', '--json'], dir);
    expect(add.code).toBe(0);
    expect(JSON.parse(add.out)).toMatchObject({ id: 'talker', render: 'video' });
    expect(add.err).toMatch(/importing .*: track \d+ %/);
    expect(existsSync(join(dir, 'avatars', 'talker', 'base.i420'))).toBe(true);
  }, 240_000);

  it('adds a photo avatar from a portrait, lists it, refuses a second with its id, removes it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mp-cli-avatars-'));
    dirs.push(dir);
    const image = join(dir, 'portrait.png');
    writeFileSync(image, await portraitFixture({ scale: 2 }));
    const add = await cli(['avatars', 'add', image, '--id', 'astro', '--name', 'Astronaut', '--json'], dir);
    expect(add).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(add.out)).toMatchObject({ id: 'astro', name: 'Astronaut', render: 'photo' });
    expect(existsSync(join(dir, 'avatars', 'astro', 'portrait.png'))).toBe(true);

    const list = await cli(['avatars', 'list', '--json'], dir);
    const rows = JSON.parse(list.out) as Array<{ id: string; render: string; added: boolean }>;
    expect(rows.find((r) => r.id === 'astro')).toMatchObject({ render: 'photo', added: true });
    expect(rows.find((r) => r.id === 'amara')).toMatchObject({ render: 'vector', added: false });

    const again = await cli(['avatars', 'add', image, '--id', 'astro', '--name', 'Again'], dir);
    expect(again.code).toBe(3);
    expect(again.err).toMatch(/"astro" already exists/);

    expect((await cli(['avatars', 'remove', 'amara'], dir)).code).toBe(1);
    expect((await cli(['avatars', 'remove', 'nobody'], dir)).code).toBe(2);
    const removed = await cli(['avatars', 'remove', 'astro'], dir);
    expect(removed).toMatchObject({ code: 0, out: 'removed avatar astro\n' });
    expect(existsSync(join(dir, 'avatars', 'astro'))).toBe(false);
  }, 60_000);

  it('says why a photo is refused, and what a command needs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mp-cli-avatars-'));
    dirs.push(dir);
    const small = join(dir, 'small.png');
    writeFileSync(small, await portraitFixture());
    const r = await cli(['avatars', 'add', small, '--id', 'small', '--name', 'Small'], dir);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/px across; at least 128 px/);
    const noId = await cli(['avatars', 'add', small, '--name', 'x'], dir);
    expect(noId.code).toBe(1);
    expect(noId.err).toMatch(/needs --id/);
    // the id rule of the admin API (avatars/uploaded-avatars.ts), checked before any work
    const badId = await cli(['avatars', 'add', small, '--id', 'Small One', '--name', 'x'], dir);
    expect(badId).toMatchObject({ code: 3, out: '' });
    expect(badId.err).toMatch(/--id "Small One" must be lower-case letters, digits and dashes/);
    expect((await cli(['avatars', 'frobnicate'], dir)).code).toBe(1);
    expect((await cli(['avatars', '--help'], dir)).out).toMatch(/avatars <add\|list\|remove\|encode-video>/);
  }, 60_000);
});
