import { describe, expect, it } from 'vitest';
import { fakeFetch, type Call } from '../testing/fake-browser.js';
import { PackLoader } from './pack-loader.js';
import { RendererUnavailable } from './types.js';

const BASE = 'http://mp.test';
const BASE_PNG = new Uint8Array([137, 80, 78, 71, 1]).buffer;
const MOUTH_PNG = new Uint8Array([137, 80, 78, 71, 2]).buffer;

/** A server with one sprite avatar of two files; `files` answers per name, honouring If-None-Match. */
function server(o: { listingStatus?: number; fileStatus?: number } = {}) {
  const files: Record<string, { bytes: ArrayBuffer; etag: string }> = {
    'base.png': { bytes: BASE_PNG, etag: '"b1"' },
    'a.png': { bytes: MOUTH_PNG, etag: '"a1"' },
  };
  return (call: Call) => {
    const m = /\/v1\/avatar-session\/([^/]+)\/avatar(?:\/(.+))?$/.exec(call.url.replace(BASE, ''));
    if (!m || call.headers['authorization'] !== `Bearer tok-${m[1]}`)
      return { status: 401, body: { success: false, error: 'no', code: 'INVALID_TOKEN' } };
    if (!m[2]) {
      if (o.listingStatus) return { status: o.listingStatus, body: { success: false, code: 'X' } };
      return {
        status: 200,
        body: {
          success: true,
          avatar: {
            id: 'kit',
            render: 'sprites',
            manifest: { id: 'kit', render: 'sprites', base: 'base.png' },
            files: Object.entries(files).map(([name, f]) => ({
              name,
              role: name === 'base.png' ? 'base' : 'mouth',
              url: `/v1/avatar-session/${m[1]}/avatar/${name}`,
              bytes: f.bytes.byteLength,
              contentType: 'image/png',
              etag: f.etag,
            })),
          },
        },
      };
    }
    const f = files[m[2]];
    if (!f || o.fileStatus)
      return { status: o.fileStatus ?? 404, body: { success: false, code: 'NOT_FOUND' } };
    if (call.headers['if-none-match'] === f.etag) return { status: 304, headers: { ETag: f.etag } };
    return { status: 200, body: f.bytes, headers: { ETag: f.etag } };
  };
}

describe('PackLoader', () => {
  it('loads the listing and every file, then revalidates them by ETag: a 304 reuses the bytes', async () => {
    const calls: Call[] = [];
    const loader = new PackLoader(fakeFetch(server(), calls));
    const first = await loader.load(`${BASE}/`, 'S1', 'tok-S1');
    expect(first).toMatchObject({ id: 'kit', render: 'sprites', manifest: { base: 'base.png' } });
    expect([...first.bytes.keys()].sort()).toEqual(['a.png', 'base.png']);
    expect(new Uint8Array(first.bytes.get('base.png')!)).toEqual(new Uint8Array(BASE_PNG));
    expect(calls.map((c) => [c.url, c.headers['if-none-match']])).toEqual([
      [`${BASE}/v1/avatar-session/S1/avatar`, undefined],
      [`${BASE}/v1/avatar-session/S1/avatar/base.png`, undefined],
      [`${BASE}/v1/avatar-session/S1/avatar/a.png`, undefined],
    ]);

    calls.length = 0; // a later session of the same avatar
    const second = await loader.load(BASE, 'S2', 'tok-S2');
    expect(calls.slice(1).map((c) => [c.url, c.headers['if-none-match']])).toEqual([
      [`${BASE}/v1/avatar-session/S2/avatar/base.png`, '"b1"'],
      [`${BASE}/v1/avatar-session/S2/avatar/a.png`, '"a1"'],
    ]);
    expect(second.bytes.get('base.png')).toBe(first.bytes.get('base.png')); // the same bytes, not refetched
    expect(second.bytes.get('a.png')).toBe(first.bytes.get('a.png'));
  });

  it("a listing that is not 2xx, a file that fails, or a malformed listing: pack-failed; the operator's 403 CLIENT_RENDER_DISABLED: server", async () => {
    for (const o of [{ listingStatus: 403 }, { listingStatus: 404 }, { fileStatus: 500 }]) {
      const err = await new PackLoader(fakeFetch(server(o), [])).load(BASE, 'S', 'tok-S').catch((e) => e);
      expect(err).toBeInstanceOf(RendererUnavailable);
      expect(err).toMatchObject({ reason: 'pack-failed' });
    }
    const disabled = server({ listingStatus: 403 });
    const refusing = (call: Call) =>
      call.url.endsWith('/avatar')
        ? {
            status: 403,
            body: { success: false, error: 'not photo avatars here', code: 'CLIENT_RENDER_DISABLED' },
          }
        : disabled(call);
    await expect(new PackLoader(fakeFetch(refusing, [])).load(BASE, 'S', 'tok-S')).rejects.toMatchObject({
      reason: 'server',
      message: 'not photo avatars here',
    });
    const malformed = fakeFetch(() => ({ status: 200, body: { success: true, avatar: { id: 'x' } } }), []);
    await expect(new PackLoader(malformed).load(BASE, 'S', 't')).rejects.toMatchObject({
      reason: 'pack-failed',
    });
    const offline = () => Promise.reject(new TypeError('Failed to fetch'));
    await expect(new PackLoader(offline).load(BASE, 'S', 't')).rejects.toMatchObject({
      reason: 'pack-failed',
      message: expect.stringContaining('Failed to fetch'),
    });
  });
});
