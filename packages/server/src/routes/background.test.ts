import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_AVATARS } from '@mouthpiece/engine/testing';
import { createTestApp, type TestApp } from '../testing/test-app.js';

let t: TestApp;
afterEach(async () => t?.close());

const create = (visualConfig: Record<string, unknown>) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/avatar-session',
    headers: { authorization: `KS ${t.secret}` },
    payload: { visualConfig },
  });

describe('visualConfig.background', () => {
  it('passes a #rrggbb colour to the engine', async () => {
    t = await createTestApp();
    const res = await create({ avatarId: 'amara', background: '#00FF00' });
    expect(res.statusCode).toBe(200);
    const call = t.engine.calls.find((c) => c.op === 'createSession');
    expect(call).toMatchObject({ opts: { avatarId: 'amara', background: '#00FF00' } });
  });

  it('answers 400 for a malformed colour and for a photo avatar, creating nothing', async () => {
    t = await createTestApp({
      avatars: [...FAKE_AVATARS, { id: 'astro', name: 'Astro', width: 512, height: 512, render: 'photo' }],
    });
    for (const background of ['green', '#0f0', '#00ff0g', '00ff00', '#00ff00 ', 7]) {
      const res = await create({ avatarId: 'amara', background });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ success: false, code: 'INVALID_REQUEST' });
      expect(res.json<{ error: string }>().error).toMatch(/background/);
    }
    const photo = await create({ avatarId: 'astro', background: '#00ff00' });
    expect(photo.statusCode).toBe(400);
    expect(photo.json<{ error: string }>().error).toMatch(/not available for photo avatars/);
    expect(t.engine.calls.filter((c) => c.op === 'createSession')).toHaveLength(0);
    // without a background the photo avatar is fine
    expect((await create({ avatarId: 'astro' })).statusCode).toBe(200);
  });
});
