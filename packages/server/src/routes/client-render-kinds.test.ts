/**
 * MOUTHPIECE_CLIENT_RENDER (docs/design.md §13.7): the avatar kinds browsers may draw themselves.
 * For another kind the pack route answers 403 CLIENT_RENDER_DISABLED (index and files alike), and a
 * WHEP offer without video is still answered (audio), its viewer told by one `notice`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NOTICE_CODE, type AvatarPackResponse } from '@mouthpiece/protocol';
import type { RenderKind } from '@mouthpiece/engine/host';
import { loadConfig } from '../config.js';
import { PACK_AVATARS, PACK_IDS, writeTestPacks } from '../testing/avatar-packs.js';
import { createTestApp, type TestApp } from '../testing/test-app.js';

let dataDir: string;
let t: TestApp;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'mp-client-render-'));
  await writeTestPacks(dataDir);
}, 120_000);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
afterEach(async () => t?.close());

const CLIENT_OFFER = [
  'v=0',
  'o=- 1 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'm=audio 9 UDP/TLS/RTP/SAVPF 111',
  'a=rtpmap:111 opus/48000/2',
  'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
  '',
].join('\r\n');

async function app(kinds: readonly RenderKind[]) {
  t = await createTestApp({ config: { dataDir, clientRenderKinds: kinds }, avatars: PACK_AVATARS });
  return t;
}

async function session(avatarId: string) {
  const s = await t.createSession({ visualConfig: { avatarId } });
  const base = `/v1/avatar-session/${s.sessionId}/avatar`;
  const get = (url: string) =>
    t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${s.token}` } });
  return { ...s, base, get };
}

describe('MOUTHPIECE_CLIENT_RENDER', () => {
  it('is every kind by default, none with `none`, and rejects a name that is not a kind', () => {
    const read = (v?: string) => loadConfig({ MOUTHPIECE_TURN: 'off', MOUTHPIECE_CLIENT_RENDER: v });
    expect(read().clientRenderKinds).toEqual(['vector', 'photo', 'sprites', 'video']);
    expect(read('none').clientRenderKinds).toEqual([]);
    expect(read(' Sprites, vector ,vector').clientRenderKinds).toEqual(['vector', 'sprites']);
    expect(() => read('vector,pixels')).toThrow(
      'MOUTHPIECE_CLIENT_RENDER: "pixels" is not an avatar kind; use a comma list of vector, photo, sprites, video, or none',
    );
  });

  it('a kind not allowed: its pack list and its files answer 403 CLIENT_RENDER_DISABLED; allowed kinds are served', async () => {
    await app(['vector', 'sprites']);
    for (const [id, kind] of [
      [PACK_IDS.photo, 'photo'],
      [PACK_IDS.video, 'video'],
    ] as const) {
      const s = await session(id);
      for (const url of [s.base, `${s.base}/portrait.png`, `${s.base}/base.i420`]) {
        const res = await s.get(url);
        expect(res.statusCode, url).toBe(403);
        expect(res.json()).toEqual({
          success: false,
          code: 'CLIENT_RENDER_DISABLED',
          error: `This server does not let browsers draw ${kind} avatars (MOUTHPIECE_CLIENT_RENDER), so it does not hand out their packs; use render: 'video' to see this avatar`,
        });
      }
    }
    const sprites = await session(PACK_IDS.sprites);
    const list = await sprites.get(sprites.base);
    expect(list.statusCode).toBe(200);
    const file = list.json<AvatarPackResponse>().avatar.files[0]!;
    expect((await sprites.get(file.url)).statusCode).toBe(200);
  });

  it('`none`: even a vector avatar is 403; an unknown avatar is still 404 first', async () => {
    await app([]);
    const s = await session(PACK_IDS.vector);
    expect((await s.get(s.base)).statusCode).toBe(403);
    const gone = await session('gone'); // in the catalog, no pack on disk
    expect((await gone.get(gone.base)).statusCode).toBe(404);
  });

  it('a viewer without video of a kind not allowed gets an answer with audio, no animation frames, and a notice', async () => {
    await app(['vector']);
    const s = await session(PACK_IDS.photo);
    const init = (await t.post(`/v1/avatar-session/${s.sessionId}/init-client`, s.token)).json<{
      whepUrl: string;
    }>();
    const url = new URL(init.whepUrl);
    const res = await t.app.inject({
      method: 'POST',
      url: url.pathname + url.search,
      headers: { 'content-type': 'application/sdp' },
      payload: CLIENT_OFFER,
    });
    expect(res.statusCode).toBe(201);
    expect(res.body).toMatch(/^m=audio /m);
    expect(res.body).not.toMatch(/^m=video /m);
    const viewerId = String(res.headers['location']).split('/').pop()!;
    await new Promise((r) => setImmediate(r)); // the (null) channel opens
    for (let i = 0; i < 10; i++) t.clock.advance(10);
    const sent = t.engine.viewerMessages(s.sessionId, viewerId) as Array<{ type: string }>;
    expect(sent.map((m) => m.type)).toEqual(['hello', 'notice']);
    expect(sent[1]).toMatchObject({ code: NOTICE_CODE.CLIENT_RENDER_UNAVAILABLE });
    expect((sent[1] as unknown as { message: string }).message).toContain('photo avatars');
    expect(t.engine.viewerFrames(s.sessionId, viewerId)).toHaveLength(0);
  });
});
