import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AvatarPackResponse } from '@mouthpiece/protocol';
import { PACK_AVATARS, PACK_IDS, testPackDir, writeTestPacks } from '../testing/avatar-packs.js';
import { createTestApp, type TestApp } from '../testing/test-app.js';

let dataDir: string;
let t: TestApp;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'mp-pack-route-'));
  await writeTestPacks(dataDir);
}, 120_000);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
afterEach(async () => t?.close());

async function session(avatarId: string, background?: string) {
  t = await createTestApp({ config: { dataDir }, avatars: PACK_AVATARS });
  const s = await t.createSession({ visualConfig: { avatarId, ...(background ? { background } : {}) } });
  const base = `/v1/avatar-session/${s.sessionId}/avatar`;
  const get = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${s.token}`, ...headers } });
  return { ...s, base, get };
}

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

const KINDS = [
  { render: 'vector', id: PACK_IDS.vector, roles: [] as string[] },
  {
    render: 'sprites',
    id: PACK_IDS.sprites,
    roles: ['base', ...Array<string>(9).fill('mouth'), 'blink', 'blink'],
  },
  { render: 'photo', id: PACK_IDS.photo, roles: ['texture'] },
  {
    render: 'video',
    id: PACK_IDS.video,
    roles: ['video-index', 'base-frames', 'mouth-library', 'base-frames-encoded', 'mouth-library-encoded'],
  },
] as const;

describe('GET /v1/avatar-session/{id}/avatar', () => {
  for (const kind of KINDS)
    it(`a ${kind.render} avatar: its manifest, and every file it lists as stored in the pack`, async () => {
      const s = await session(kind.id);
      const res = await s.get(s.base);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['cache-control']).toBe('private, no-cache');
      expect(res.headers['etag']).toMatch(/^"[\w-]{27}"$/);
      const { avatar } = res.json<AvatarPackResponse>();
      const dir = testPackDir(dataDir, kind.id);
      expect(avatar).toMatchObject({ id: kind.id, render: kind.render });
      expect(avatar.manifest).toEqual(JSON.parse(readFileSync(join(dir, 'avatar.json'), 'utf8')));
      expect(avatar.files.map((f) => f.role).sort()).toEqual([...kind.roles].sort());
      for (const f of avatar.files) {
        const stored = readFileSync(join(dir, f.name));
        expect(f.url).toBe(`${s.base}/${f.name}`);
        expect(f.bytes).toBe(stored.length);
        const file = await s.get(f.url);
        expect(file.statusCode, f.name).toBe(200);
        expect(file.headers['content-length']).toBe(String(stored.length));
        expect(file.headers['content-type']).toBe(f.contentType);
        expect(file.headers['etag']).toBe(f.etag);
        expect(file.headers['cache-control']).toBe('private, max-age=86400, immutable');
        expect(sha(file.rawPayload)).toBe(sha(stored));
      }
      if (kind.render === 'photo') {
        // the mesh is made from the manifest's 68 landmarks over this texture
        expect(avatar.files[0]).toMatchObject({ name: 'portrait.png', contentType: 'image/png' });
        expect((avatar.manifest as { landmarks: unknown[] }).landmarks).toHaveLength(68);
      }
      if (kind.render === 'video') {
        expect(avatar.files.map((f) => f.contentType)).toEqual([
          'application/json; charset=utf-8',
          ...Array<string>(4).fill('application/octet-stream'),
        ]);
        expect(avatar.files.map((f) => [f.name, f.encodes, f.codec])).toEqual([
          ['video.json', undefined, undefined],
          ['base.i420', undefined, undefined],
          ['mouths.i420', undefined, undefined],
          ['base.ivf', 'base.i420', 'vp09.00.30.08'],
          ['mouths.ivf', 'mouths.i420', 'vp09.00.30.08'],
        ]);
      }
    });

  it('a video pack without encoded frames (imported before them) lists its raw files only; the encoded names are 404', async () => {
    const s = await session(PACK_IDS.video);
    const dir = testPackDir(dataDir, PACK_IDS.video);
    const aside = join(dataDir, 'base.ivf.aside');
    renameSync(join(dir, 'base.ivf'), aside);
    try {
      const res = await s.get(s.base);
      expect(res.statusCode).toBe(200);
      const names = res.json<AvatarPackResponse>().avatar.files.map((f) => f.name);
      expect(names).toEqual(['video.json', 'base.i420', 'mouths.i420', 'mouths.ivf']);
      const missing = await s.get(`${s.base}/base.ivf`);
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    } finally {
      renameSync(aside, join(dir, 'base.ivf'));
    }
    expect((await s.get(`${s.base}/base.ivf`)).statusCode).toBe(200);
  });

  it('304 to a matching If-None-Match (a list, weak or *), 200 to another; HEAD answers headers only', async () => {
    const s = await session(PACK_IDS.sprites);
    const first = await s.get(s.base);
    const etag = first.headers['etag'] as string;
    const file = first.json<AvatarPackResponse>().avatar.files[0]!;
    for (const [url, tag] of [
      [s.base, etag],
      [file.url, file.etag],
    ] as const) {
      for (const header of [tag, `"other", ${tag}`, `W/${tag}`, '*']) {
        const res = await s.get(url, { 'if-none-match': header });
        expect(res.statusCode, `${url} ${header}`).toBe(304);
        expect(res.body).toBe('');
        expect(res.headers['etag']).toBe(tag);
      }
      expect((await s.get(url, { 'if-none-match': '"other"' })).statusCode).toBe(200);
      const head = await s.get(url, {}, 'HEAD');
      expect(head.statusCode).toBe(200);
      expect(head.body).toBe('');
      expect(head.headers['etag']).toBe(tag);
      expect(head.headers['content-length']).toBe((await s.get(url)).headers['content-length']);
      expect((await s.get(url, { 'if-none-match': tag }, 'HEAD')).statusCode).toBe(304);
    }
  });

  it('a changed file gets a new ETag, and so does the list that names it', async () => {
    const s = await session(PACK_IDS.video);
    const before = await s.get(s.base);
    const { files } = before.json<AvatarPackResponse>().avatar;
    const index = files.find((f) => f.role === 'video-index')!;
    const path = join(testPackDir(dataDir, PACK_IDS.video), index.name);
    const original = readFileSync(path);
    try {
      writeFileSync(path, Buffer.concat([original, Buffer.from(' ')])); // still the same JSON
      const after = await s.get(s.base, { 'if-none-match': before.headers['etag'] as string });
      expect(after.statusCode).toBe(200);
      const changed = after.json<AvatarPackResponse>().avatar.files.find((f) => f.role === 'video-index')!;
      expect(changed.etag).not.toBe(index.etag);
      expect(changed.bytes).toBe(original.length + 1);
      const res = await s.get(index.url, { 'if-none-match': index.etag });
      expect(res.statusCode).toBe(200);
      expect(res.headers['etag']).toBe(changed.etag);
    } finally {
      writeFileSync(path, original);
    }
  });

  it('the same content answers the same ETag in another session (an SDK may keep it across sessions)', async () => {
    const a = await session(PACK_IDS.photo);
    const first = (await a.get(a.base)).json<AvatarPackResponse>().avatar.files[0]!;
    await t.close();
    const b = await session(PACK_IDS.photo);
    const second = (await b.get(b.base)).json<AvatarPackResponse>().avatar.files[0]!;
    expect(second.url).not.toBe(first.url);
    expect(second.etag).toBe(first.etag);
    expect((await b.get(second.url, { 'if-none-match': first.etag })).statusCode).toBe(304);
  });

  it("carries the session's background when it has one; the files and their ETags stay the pack's", async () => {
    const plain = await session(PACK_IDS.sprites);
    const without = (await plain.get(plain.base)).json<AvatarPackResponse>().avatar;
    expect(without).not.toHaveProperty('background');
    await t.close();
    const coloured = await session(PACK_IDS.sprites, '#1e90ff');
    const res = await coloured.get(coloured.base);
    const { avatar } = res.json<AvatarPackResponse>();
    expect(avatar.background).toBe('#1e90ff');
    expect(avatar.manifest).toEqual(without.manifest);
    expect(avatar.files.map((f) => [f.name, f.etag])).toEqual(without.files.map((f) => [f.name, f.etag]));
    const again = await coloured.get(coloured.base, { 'if-none-match': res.headers['etag'] as string });
    expect(again.statusCode).toBe(304);
  });

  it('a page of any origin may read it: the preflight allows If-None-Match, answers expose ETag', async () => {
    const s = await session(PACK_IDS.photo);
    const origin = 'https://app.example';
    const pre = await t.app.inject({
      method: 'OPTIONS',
      url: `${s.base}/portrait.png`,
      headers: {
        origin,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization, if-none-match',
      },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe(origin);
    expect(String(pre.headers['access-control-allow-headers'])).toMatch(/If-None-Match/);
    const res = await s.get(s.base, { origin });
    expect(res.headers['access-control-allow-origin']).toBe(origin);
    expect(String(res.headers['access-control-expose-headers'])).toMatch(/ETag/);
  });
});
