import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticVideoPack } from '@mouthpiece/engine/testing';
import { runCliCaptured } from '../testing/cli-run.js';

let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'mp-cli-encode-'));
  // a video pack as imported before the import wrote the browsers' VP9 files
  await writeSyntheticVideoPack(join(dataDir, 'avatars'), { id: 'old-clip', baseFrames: 4 });
}, 60_000);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const cli = (argv: string[]) => runCliCaptured(argv, dataDir);

describe('mouthpiece avatars encode-video', () => {
  it('adds base.ivf and mouths.ivf to a video pack that lacks them, once; refuses what is not a video avatar', async () => {
    const dir = join(dataDir, 'avatars', 'old-clip');
    expect(existsSync(join(dir, 'base.ivf'))).toBe(false);
    const first = await cli(['avatars', 'encode-video']);
    expect(first).toMatchObject({ code: 0, err: '' });
    expect(first.out).toMatch(
      /^old-clip: wrote base\.ivf \(4 frames\) and mouths\.ivf \(12 crops\), \d+ KiB\n$/,
    );
    expect(existsSync(join(dir, 'base.ivf')) && existsSync(join(dir, 'mouths.ivf'))).toBe(true);
    const again = await cli(['avatars', 'encode-video', 'old-clip', '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out)).toEqual([{ id: 'old-clip', encoded: false }]);
    expect((await cli(['avatars', 'encode-video', 'amara'])).code).toBe(1);
    expect((await cli(['avatars', 'encode-video', 'nobody'])).code).toBe(2);
    expect((await cli(['avatars', 'encode-video', 'a', 'b'])).code).toBe(1);
  });
});
