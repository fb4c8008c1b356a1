import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { BUILTIN_AVATARS_DIR, loadAvatarPack } from './catalog.js';
import type { PhotoAvatarManifest, SpriteAvatarManifest, VideoAvatarManifest } from './manifest.js';
import { rendererFiles } from './pack-files.js';

const named = { id: 'x', name: 'X', version: 1 as const };

describe('rendererFiles (what a browser renderer fetches besides the manifest)', () => {
  it('a vector avatar needs its manifest only', () => {
    expect(rendererFiles(loadAvatarPack(join(BUILTIN_AVATARS_DIR, 'amara')).manifest)).toEqual([]);
  });

  it('a sprite avatar: base, each distinct mouth picture once, blinks', () => {
    const shapes = Object.fromEntries([...'ABCDEFGHX'].map((v) => [v, v === 'X' ? 'a.png' : `${v}.png`]));
    const m: SpriteAvatarManifest = {
      ...named,
      render: 'sprites',
      size: { width: 64, height: 64 },
      base: 'base.png',
      mouth: {
        anchor: { x: 0, y: 0, width: 8, height: 8 },
        shapes: shapes as SpriteAvatarManifest['mouth']['shapes'],
      },
      blink: { anchor: { x: 0, y: 0, width: 8, height: 8 }, images: ['half.png', 'shut.png'] },
    };
    const files = rendererFiles({ ...m, mouth: { ...m.mouth, shapes: { ...m.mouth.shapes, A: 'a.png' } } });
    expect(files.map((f) => `${f.role}:${f.name}`)).toEqual([
      'base:base.png',
      'mouth:a.png',
      ...'BCDEFGH'.split('').map((v) => `mouth:${v}.png`),
      'blink:half.png',
      'blink:shut.png',
    ]);
  });

  it('a photo avatar: its portrait; a video avatar: index, idle frames, mouth library, and both encoded', () => {
    const photo: PhotoAvatarManifest = {
      ...named,
      render: 'photo',
      image: 'portrait.png',
      landmarks: Array.from({ length: 68 }, (): [number, number] => [0, 0]),
    };
    expect(rendererFiles(photo)).toEqual([{ name: 'portrait.png', role: 'texture' }]);
    const video: VideoAvatarManifest = { ...named, render: 'video' };
    expect(rendererFiles(video)).toEqual([
      { name: 'video.json', role: 'video-index' },
      { name: 'base.i420', role: 'base-frames' },
      { name: 'mouths.i420', role: 'mouth-library' },
      // the same frames as VP9 for browsers, when the pack has them (imports before them have not)
      {
        name: 'base.ivf',
        role: 'base-frames-encoded',
        optional: true,
        encodes: 'base.i420',
        codec: 'vp09.00.30.08',
      },
      {
        name: 'mouths.ivf',
        role: 'mouth-library-encoded',
        optional: true,
        encodes: 'mouths.i420',
        codec: 'vp09.00.30.08',
      },
    ]);
  });
});
