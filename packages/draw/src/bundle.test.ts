/**
 * The browser bundle of the drawing code (`npm run build` → dist/mouthpiece-draw.js): its gzipped
 * size stays inside its share of the SDK's 150 KB budget (docs/design.md §13), and it is
 * self-contained browser code. The package's sources import only each other (and the protocol's
 * face-state types, as types), so the same files compile for Node and the browser.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** vector + sprite drawing's share of the SDK's 150 KB gzipped (the rest: SDK, WebGL photo warp, protocol). */
export const DRAW_BUDGET_GZIP_BYTES = 60 * 1024;

const dist = (f: string) => fileURLToPath(new URL(`../dist/${f}`, import.meta.url));
const src = fileURLToPath(new URL('.', import.meta.url));

describe('the browser bundle of @mouthpiece/draw', () => {
  it(`is at most ${DRAW_BUDGET_GZIP_BYTES / 1024} KiB gzipped, script and module alike`, () => {
    for (const f of ['mouthpiece-draw.js', 'mouthpiece-draw.mjs']) {
      if (!existsSync(dist(f))) throw new Error(`${dist(f)} is missing: run npm run build`);
      const gz = gzipSync(readFileSync(dist(f)), { level: 9 }).length;
      expect(gz, f).toBeLessThanOrEqual(DRAW_BUDGET_GZIP_BYTES);
      expect(gz, `${f} holds the drawing`).toBeGreaterThan(2 * 1024);
    }
  });

  it('bundles nothing of Node and exports the browser drawing API', async () => {
    const source = readFileSync(dist('mouthpiece-draw.mjs'), 'utf8');
    expect(source).not.toMatch(/\brequire\(|from\s*["'](node:|@)/);
    const m = (await import(dist('mouthpiece-draw.mjs'))) as Record<string, unknown>;
    for (const name of [
      'createCanvasVectorAvatar',
      'createCanvasSpriteAvatar',
      'createVectorCache',
      'MOUTH_SHAPES',
    ])
      expect(typeof m[name], name).not.toBe('undefined');
  });

  it("its sources import only each other (no Node, no DOM, no other package but the protocol's types)", () => {
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
    );
    expect(files.length).toBeGreaterThan(5);
    expect(files).toContain('video/video-frame.ts');
    expect(files, 'the photo rig and inner mouth (docs/design.md §13.5)').toContain('photo/photo-rig.ts');
    for (const f of files) {
      const code = readFileSync(`${src}${f}`, 'utf8');
      // the face state and video pick are the protocol's: as types only, erased from the bundle
      const typeOnly = /^(?:import|export) type \{[^}]*\} from '@mouthpiece\/protocol';$/gm;
      const imports = [...code.replace(typeOnly, '').matchAll(/\bfrom\s+'([^']+)'/g)].map((x) => x[1]);
      // a file beside it or one folder down from src/ (photo/, video/); from a folder, also src/ itself
      const local = f.includes('/')
        ? /^\.\.?\/([a-z0-9-]+\/)?[a-z0-9-]+\.js$/
        : /^\.\/([a-z0-9-]+\/)?[a-z0-9-]+\.js$/;
      for (const i of imports) expect(i, `${f} imports ${i}`).toMatch(local);
    }
  });
});
