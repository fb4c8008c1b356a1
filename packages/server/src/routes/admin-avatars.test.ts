import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { blankImage, makeTalkingClip, portraitFixture } from '@mouthpiece/engine/testing';
import { createTestApp, multipartBody, type TestApp } from '../testing/test-app.js';

const ADMIN = 'admin-token-for-tests';
let t: TestApp;
let dataDir: string;
let portrait: Buffer;

beforeAll(async () => {
  portrait = await portraitFixture({ scale: 2 });
});
afterEach(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function app(): Promise<TestApp> {
  dataDir = mkdtempSync(join(tmpdir(), 'mp-avatars-'));
  t = await createTestApp({ config: { adminToken: ADMIN, dataDir } });
  return t;
}

function upload(fields: Array<[string, string | Buffer]>) {
  return t.app.inject({ method: 'POST', url: '/admin/v1/avatars', ...multipartBody(fields, ADMIN) });
}

/** What the uploads folder holds (nothing may be left behind by a refused upload). */
const stored = (): string[] => {
  try {
    return readdirSync(join(dataDir, 'avatars'));
  } catch {
    return [];
  }
};

describe('POST /admin/v1/avatars', () => {
  it('makes a photo avatar from a portrait (JPEG here): 201 with the catalog entry, the pack kept under the data dir', async () => {
    await app();
    const res = await upload([
      ['id', 'astro'],
      ['name', 'Astronaut'],
      ['description', 'test portrait'],
      ['image', await portraitFixture({ scale: 2, format: 'jpeg' })],
    ]);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      success: true,
      avatar: { id: 'astro', name: 'Astronaut', previewUrl: '/v1/avatars/astro/preview.png' },
    });
    expect(readdirSync(join(dataDir, 'avatars', 'astro')).sort()).toEqual([
      'avatar.json',
      'portrait.png',
      'preview.png',
    ]);
    // the same id again: 409, and the first stays
    const again = await upload([
      ['id', 'astro'],
      ['name', 'Again'],
      ['image', portrait],
    ]);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'AVATAR_EXISTS' });
    expect(stored()).toEqual(['astro']);

    const del = await t.app.inject({
      method: 'DELETE',
      url: '/admin/v1/avatars/astro',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(del.statusCode).toBe(200);
    expect(stored()).toEqual([]);
    const twice = await t.app.inject({
      method: 'DELETE',
      url: '/admin/v1/avatars/astro',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(twice.statusCode).toBe(404);
  }, 60_000);

  it('refuses what cannot be animated with a 4xx naming the problem, leaving nothing behind', async () => {
    await app();
    const cases: Array<[Array<[string, string | Buffer]>, number, string, RegExp]> = [
      [
        [
          ['id', 'a'],
          ['name', 'A'],
          ['image', Buffer.from('not a picture at all')],
        ],
        400,
        'INVALID_IMAGE',
        /PNG or JPEG/,
      ],
      [
        [
          ['id', 'a'],
          ['name', 'A'],
          ['image', Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4])],
        ],
        400,
        'INVALID_IMAGE',
        /cannot be decoded/,
      ],
      [
        [
          ['id', 'a'],
          ['name', 'A'],
          ['image', await blankImage(640, 480)],
        ],
        422,
        'UNUSABLE_PORTRAIT',
        /No face/,
      ],
      [
        [
          ['id', 'a'],
          ['name', 'A'],
          ['image', await portraitFixture()],
        ],
        422,
        'UNUSABLE_PORTRAIT',
        /\d+ px across; at least 128/,
      ],
      [
        [
          ['id', 'a'],
          ['name', 'A'],
          ['image', await portraitFixture({ scale: 1.5, copies: 2 })],
        ],
        422,
        'UNUSABLE_PORTRAIT',
        /shows 2 faces/,
      ],
      [
        [
          ['id', 'a'],
          ['name', 'A'],
          ['image', await blankImage(4100, 200)],
        ],
        400,
        'INVALID_IMAGE',
        /4100×200 px; at most 4096/,
      ],
      [
        [
          ['id', 'Bad Id'],
          ['name', 'A'],
          ['image', portrait],
        ],
        400,
        'INVALID_REQUEST',
        /"id": must be lower-case/,
      ],
      [
        [
          ['name', 'A'],
          ['image', portrait],
        ],
        400,
        'INVALID_REQUEST',
        /"id": is required/,
      ],
      [
        [
          ['id', 'a'],
          ['image', portrait],
        ],
        400,
        'INVALID_REQUEST',
        /"name": is required/,
      ],
      [
        [
          ['id', 'a'],
          ['name', 'A'],
        ],
        400,
        'INVALID_IMAGE',
        /no image/,
      ],
      [
        [
          ['id', 'amara'],
          ['name', 'A'],
          ['image', portrait],
        ],
        409,
        'AVATAR_EXISTS',
        /"amara" already exists/,
      ],
      [
        [
          ['id', 'a'],
          ['name', 'A'],
          ['image', Buffer.alloc(20 * 1024 * 1024 + 1)],
        ],
        413,
        'PAYLOAD_TOO_LARGE',
        /over 20 MiB/,
      ],
    ];
    for (const [fields, status, code, message] of cases) {
      const res = await upload(fields);
      expect({ status: res.statusCode, body: res.json() }).toMatchObject({
        status,
        body: { success: false, code, error: expect.stringMatching(message) },
      });
      expect(stored()).toEqual([]);
    }
    const json = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/avatars',
      headers: { authorization: `Bearer ${ADMIN}` },
      payload: { id: 'a' },
    });
    expect(json.statusCode).toBe(415);
  }, 120_000);

  it('removes only uploaded avatars', async () => {
    await app();
    const h = { authorization: `Bearer ${ADMIN}` };
    const builtIn = await t.app.inject({ method: 'DELETE', url: '/admin/v1/avatars/amara', headers: h });
    expect(builtIn.statusCode).toBe(409);
    expect(builtIn.json()).toMatchObject({ code: 'AVATAR_READ_ONLY' });
    const unknown = await t.app.inject({ method: 'DELETE', url: '/admin/v1/avatars/nobody', headers: h });
    expect(unknown.statusCode).toBe(404);
    const noAuth = await t.app.inject({ method: 'DELETE', url: '/admin/v1/avatars/amara' });
    expect(noAuth.statusCode).toBe(401);
  });
});

describe('POST /admin/v1/avatars with a clip (video avatars)', () => {
  let clip: Buffer;
  beforeAll(async () => {
    clip = readFileSync((await makeTalkingClip({ durationS: 22 })).file);
  }, 180_000);

  it('makes a video avatar from a clip in "video": 201 with render "video", the pack kept under the data dir', async () => {
    await app();
    const res = await upload([
      ['id', 'talker'],
      ['name', 'Talker'],
      ['video', clip],
    ]);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      success: true,
      avatar: { id: 'talker', name: 'Talker', render: 'video', previewUrl: '/v1/avatars/talker/preview.png' },
    });
    expect(stored()).toEqual(['talker']); // the streamed upload is gone
    expect(readdirSync(join(dataDir, 'avatars', 'talker')).sort()).toEqual([
      'avatar.json',
      'base.i420',
      'base.ivf', // the VP9 copies for browsers (docs/design.md §13.6)
      'mouths.i420',
      'mouths.ivf',
      'preview.png',
      'video.json',
    ]);
    expect(JSON.parse(readFileSync(join(dataDir, 'avatars', 'talker', 'avatar.json'), 'utf8'))).toMatchObject(
      {
        id: 'talker',
        render: 'video',
        source: 'upload',
      },
    );
  }, 180_000);

  it('refuses a clip it cannot use with a 4xx naming the problem, leaving nothing behind', async () => {
    await app();
    const cases: Array<[Array<[string, string | Buffer]>, number, string, RegExp]> = [
      [
        [
          ['id', 'a'],
          ['name', 'A'],
          ['video', Buffer.from('this is not a video at all '.repeat(100))],
        ],
        400,
        'INVALID_VIDEO',
        /"video" is not a video/,
      ],
      [
        [
          ['id', 'a'],
          ['name', 'A'],
          ['image', clip],
        ],
        400,
        'INVALID_IMAGE',
        /"image" holds a video; send a clip in the field "video"/,
      ],
      [
        [
          ['id', 'a'],
          ['name', 'A'],
          ['video', Buffer.alloc(201 * 1024 * 1024)],
        ],
        413,
        'PAYLOAD_TOO_LARGE',
        /the video is over 200 MiB/,
      ],
    ];
    for (const [fields, status, code, message] of cases) {
      const res = await upload(fields);
      expect({ status: res.statusCode, body: res.json() }).toMatchObject({
        status,
        body: { success: false, code, error: expect.stringMatching(message) },
      });
      expect(stored()).toEqual([]);
    }
  }, 60_000);

  it('says ffmpeg is missing with a 422 when it is not on the PATH (the import process inherits it)', async () => {
    await app();
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    let res;
    try {
      res = await upload([
        ['id', 'talker'],
        ['name', 'Talker'],
        ['video', clip],
      ]);
    } finally {
      process.env.PATH = path;
    }
    expect({ status: res.statusCode, body: res.json() }).toMatchObject({
      status: 422,
      body: {
        success: false,
        code: 'VIDEO_IMPORT_UNAVAILABLE',
        error: expect.stringMatching(/apt-get install ffmpeg/),
      },
    });
    expect(stored()).toEqual([]);
  }, 60_000);
});

describe('GET /v1/avatars previews', () => {
  it('lists previewUrl and render, and serves a PNG thumbnail without a credential', async () => {
    await app();
    const list = await t.app.inject({
      method: 'GET',
      url: '/v1/avatars',
      headers: { authorization: `KS ${t.secret}` },
    });
    expect(list.json<{ avatars: unknown[] }>().avatars).toContainEqual(
      expect.objectContaining({ id: 'amara', previewUrl: '/v1/avatars/amara/preview.png' }),
    );
    const png = await t.app.inject({ method: 'GET', url: '/v1/avatars/amara/preview.png' });
    expect(png.statusCode).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.rawPayload.subarray(1, 4).toString()).toBe('PNG');
    expect(png.rawPayload.readUInt32BE(16)).toBe(256);
    const unknown = await t.app.inject({ method: 'GET', url: '/v1/avatars/nobody/preview.png' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'NOT_FOUND' });
  }, 30_000);
});
