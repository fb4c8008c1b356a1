import { describe, expect, it } from 'vitest';
import { fakeFetch, type Call } from '../testing/fake-browser.js';
import { PackLoader } from './pack-loader.js';
import type { FrameDecoder } from './video-decode.js';

const BASE = 'http://mp.test';
const CODEC = 'vp09.00.30.08';
/** The raw files and their "encodings": half as long; the test decoder doubles every byte back. */
const RAW = { 'base.i420': [1, 1, 2, 2, 3, 3, 4, 4], 'mouths.i420': [5, 5, 6, 6] };
const ENCODED = { 'base.ivf': [1, 2, 3, 4], 'mouths.ivf': [5, 6] };

function server(o: { encoded?: boolean; ivfStatus?: number } = {}) {
  const files: Record<string, { bytes: ArrayBuffer; role: string; encodes?: string }> = {
    'video.json': { bytes: new TextEncoder().encode('{}').buffer, role: 'video-index' },
    'base.i420': { bytes: new Uint8Array(RAW['base.i420']).buffer, role: 'base-frames' },
    'mouths.i420': { bytes: new Uint8Array(RAW['mouths.i420']).buffer, role: 'mouth-library' },
    ...(o.encoded === false
      ? {}
      : {
          'base.ivf': {
            bytes: new Uint8Array(ENCODED['base.ivf']).buffer,
            role: 'base-frames-encoded',
            encodes: 'base.i420',
          },
          'mouths.ivf': {
            bytes: new Uint8Array(ENCODED['mouths.ivf']).buffer,
            role: 'mouth-library-encoded',
            encodes: 'mouths.i420',
          },
        }),
  };
  return (call: Call) => {
    const m = /\/v1\/avatar-session\/([^/]+)\/avatar(?:\/(.+))?$/.exec(call.url.replace(BASE, ''))!;
    if (!m[2])
      return {
        status: 200,
        body: {
          success: true,
          avatar: {
            id: 'clip',
            render: 'video',
            manifest: { id: 'clip', render: 'video' },
            files: Object.entries(files).map(([name, f]) => ({
              name,
              role: f.role,
              url: `/v1/avatar-session/${m[1]}/avatar/${name}`,
              bytes: f.bytes.byteLength,
              contentType: 'application/octet-stream',
              etag: `"${name}"`,
              ...(f.encodes ? { encodes: f.encodes, codec: CODEC } : {}),
            })),
          },
        },
      };
    const f = files[m[2]]!;
    if (o.ivfStatus && m[2].endsWith('.ivf')) return { status: o.ivfStatus, body: {} };
    if (call.headers['if-none-match'] === `"${m[2]}"`) return { status: 304, headers: { ETag: `"${m[2]}"` } };
    return { status: 200, body: f.bytes, headers: { ETag: `"${m[2]}"` } };
  };
}

/** A decoder of the test's encoding (every byte twice), counting its calls. */
function doubling(o: { supports?: boolean; fails?: string; extra?: number } = {}) {
  const seen: number[][] = [];
  const decoder: FrameDecoder = {
    supports: (codec) => Promise.resolve(codec === CODEC && o.supports !== false),
    decode(file) {
      const input = [...new Uint8Array(file)];
      seen.push(input);
      if (o.fails !== undefined && input[0] === RAW[o.fails as keyof typeof RAW][0])
        return Promise.reject(new Error('decoder error'));
      return Promise.resolve(
        new Uint8Array([...input.flatMap((v) => [v, v]), ...Array(o.extra ?? 0).fill(9)]).buffer,
      );
    },
  };
  return { decoder, seen };
}

const fetched = (calls: Call[]) =>
  calls
    .map((c) => c.url.split('/').pop()!)
    .slice(1)
    .sort();
const bytesOf = (pack: { bytes: ReadonlyMap<string, ArrayBuffer> }) =>
  Object.fromEntries([...pack.bytes].map(([k, v]) => [k, [...new Uint8Array(v)]]));

describe('PackLoader with encoded video files', () => {
  it('takes the encoded files when the codec decodes: the raw ones are never fetched, their bytes are the decoded frames', async () => {
    const calls: Call[] = [];
    const { decoder, seen } = doubling();
    const loader = new PackLoader(fakeFetch(server(), calls), decoder);
    const pack = await loader.load(BASE, 'S1', 'tok');
    expect(fetched(calls)).toEqual(['base.ivf', 'mouths.ivf', 'video.json']);
    expect(bytesOf(pack)).toEqual({ 'video.json': [123, 125], ...RAW });
    expect(seen).toHaveLength(2);
    calls.length = 0; // a later session: revalidated, and kept decoded (not decoded again)
    const again = await loader.load(BASE, 'S2', 'tok');
    expect(
      calls
        .slice(1)
        .map((c) => c.headers['if-none-match'])
        .sort(),
    ).toEqual(['"base.ivf"', '"mouths.ivf"', '"video.json"']);
    expect(again.bytes.get('base.i420')).toBe(pack.bytes.get('base.i420'));
    expect(seen).toHaveLength(2);
  });

  it('the raw files when the codec does not decode here, or the pack has no encoded files', async () => {
    for (const [o, supports] of [
      [{}, false],
      [{ encoded: false }, true],
    ] as const) {
      const calls: Call[] = [];
      const { decoder, seen } = doubling({ supports });
      const pack = await new PackLoader(fakeFetch(server(o), calls), decoder).load(BASE, 'S', 'tok');
      expect(fetched(calls)).toEqual(['base.i420', 'mouths.i420', 'video.json']);
      expect(bytesOf(pack)).toEqual({ 'video.json': [123, 125], ...RAW });
      expect(seen).toHaveLength(0);
    }
  });

  it('any failure of an encoded file (decoder error, wrong size, an error answer) takes its raw file instead', async () => {
    for (const [o, d, raws] of [
      [{}, { fails: 'mouths.i420' }, ['mouths.i420']],
      [{}, { extra: 2 }, ['base.i420', 'mouths.i420']],
      [{ ivfStatus: 500 }, {}, ['base.i420', 'mouths.i420']],
    ] as const) {
      const calls: Call[] = [];
      const { decoder } = doubling(d);
      const pack = await new PackLoader(fakeFetch(server(o), calls), decoder).load(BASE, 'S', 'tok');
      expect(fetched(calls)).toEqual([...raws, 'base.ivf', 'mouths.ivf', 'video.json'].sort());
      expect(bytesOf(pack)).toEqual({ 'video.json': [123, 125], ...RAW });
    }
  });
});
