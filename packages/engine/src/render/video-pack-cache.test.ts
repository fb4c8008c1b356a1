/**
 * A session's video pack: read through the async cache, one load shared by the sessions starting
 * with it, resident (every base frame at the output size) before its renderer exists, loaded in
 * slices that let the event loop turn, and a failed load refused clearly and forgotten.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_MOTION, REST_MOUTH, type FaceState } from '../face-state.js';
import { writeSyntheticVideoPack, type SyntheticVideoPack } from '../testing/synthetic-video-pack.js';
import { i420Bytes, VIDEO_FILES } from '../video/pack.js';
import { createAvatarRenderer, openAvatarRenderer } from './avatar-renderer.js';
import type { Renderer } from './renderer.js';
import { loadVideoPack, videoPackLoads, videoPackState } from './video-pack-cache.js';

let root: string;
let pack: SyntheticVideoPack;
const PACK = 128;
const FRAMES = 12;
/** An output size other than the pack's: the base frames are scaled while the pack loads. */
const OUT = { width: 192, height: 160 };

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mp-video-cache-'));
  pack = await writeSyntheticVideoPack(root, { id: 'talker', size: PACK, baseFrames: FRAMES });
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const speaking: FaceState = {
  mouth: { ...REST_MOUTH, open: 0.6, width: 0.45, teeth: 0.3 },
  motion: REST_MOTION,
  speaking: true,
};

function frames(r: Renderer, n: number): Uint8Array[] {
  return Array.from({ length: n }, () => {
    const out = new Uint8Array(i420Bytes(r.width, r.height));
    r.renderI420!(speaking, out);
    return out;
  });
}

/** A copy of the pack in a folder of its own (to break), with the same video.json. */
function copyPack(name: string): SyntheticVideoPack {
  const dir = join(root, name);
  cpSync(pack.dir, dir, { recursive: true, preserveTimestamps: true });
  return { ...pack, dir };
}

describe('a session opening a video avatar', () => {
  it('gets its renderer once the pack is resident: every base frame already at the output size', async () => {
    const loads = videoPackLoads.count;
    const r = await openAvatarRenderer(pack.manifest, OUT, pack.dir, { fps: 25 });
    expect(videoPackLoads.count).toBe(loads + 1);
    expect(videoPackState(pack.dir, OUT)).toBe('resident');
    const lease = await loadVideoPack(pack.dir, OUT); // a second user: no new load
    expect(videoPackLoads.count).toBe(loads + 1);
    expect(lease.pack.frames.every((f) => f?.length === i420Bytes(OUT.width, OUT.height))).toBe(true);
    expect(lease.pack.packBase).toBeUndefined(); // nothing left to scale on a tick
    const fromSession = frames(r, FRAMES + 3);
    r.close();
    lease.release();
    lease.release(); // again: a no-op, not a second release
    expect(videoPackState(pack.dir, OUT)).toBe('absent');
    // the same frames as the synchronous path tools use (a load of its own: the pack was dropped)
    const tool = createAvatarRenderer(pack.manifest, OUT, pack.dir, { fps: 25 });
    expect(videoPackLoads.count).toBe(loads + 2);
    expect(frames(tool, FRAMES + 3)).toEqual(fromSession);
    tool.close();
  });

  it('shares one load between sessions starting together, and drops the pack when the last closes', async () => {
    const loads = videoPackLoads.count;
    const [a, b] = await Promise.all([
      openAvatarRenderer(pack.manifest, OUT, pack.dir),
      openAvatarRenderer(pack.manifest, OUT, pack.dir),
    ]);
    expect(videoPackLoads.count).toBe(loads + 1);
    a.close();
    a.close();
    expect(videoPackState(pack.dir, OUT)).toBe('resident'); // b still holds it
    b.close();
    expect(videoPackState(pack.dir, OUT)).toBe('absent');
    (await openAvatarRenderer(pack.manifest, OUT, pack.dir)).close();
    expect(videoPackLoads.count).toBe(loads + 2); // loaded again
  });

  it('lets the event loop turn while it loads: reads on libuv threads, scaling on a worker thread', async () => {
    let turns = 0;
    let loading = true;
    const count = (): void => {
      turns++;
      if (loading) setImmediate(count);
    };
    setImmediate(count);
    const r = await openAvatarRenderer(pack.manifest, OUT, pack.dir);
    loading = false;
    r.close();
    // a synchronous load (read, lay out, scale): 0 or 1
    expect(turns).toBeGreaterThanOrEqual(FRAMES);
  });
});

describe('a pack that cannot be loaded', () => {
  it('refuses the session naming the avatar, the file and what to do, and is not remembered', async () => {
    const p = copyPack('truncated');
    const file = join(p.dir, VIDEO_FILES.base);
    const whole = readFileSync(file);
    truncateSync(file, whole.length - 100);
    const refused = (): Promise<string> =>
      openAvatarRenderer(p.manifest, OUT, p.dir).then(
        (r) => {
          r.close();
          return 'opened';
        },
        (err: unknown) => (err as Error).message,
      );
    const [one, two] = await Promise.all([refused(), refused()]);
    expect(one).toContain(`avatar talker: its video pack could not be loaded: ${file}`);
    expect(one).toMatch(/bytes, expected \d+ .*import the clip again/);
    expect(two).toBe(one);
    expect(videoPackState(p.dir, OUT)).toBe('absent');
    // repaired in place (video.json untouched: the same cache key): the next session loads it
    writeFileSync(file, whole);
    expect(await refused()).toBe('opened');
  });

  it('a missing file is named', async () => {
    const p = copyPack('missing');
    rmSync(join(p.dir, VIDEO_FILES.mouths));
    await expect(openAvatarRenderer(p.manifest, OUT, p.dir)).rejects.toThrow(join(p.dir, VIDEO_FILES.mouths));
    expect(videoPackState(p.dir, OUT)).toBe('absent');
  });
});
