/**
 * The SDK as someone outside this repository gets it (`npm run build` output): a self-contained
 * ES module and one declaration file that imports nothing unpublished and type-checks alone.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createContext, runInContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const dist = (f: string) => fileURLToPath(new URL(`../dist/${f}`, import.meta.url));

/** The SDK's budget, everything bundled (docs/design.md §13.1; the drawing's share: draw/src/bundle.test.ts). */
export const SDK_BUDGET_GZIP_BYTES = 150 * 1024;

describe('the built SDK', () => {
  it('the ES module bundles everything it needs and exports the public API', async () => {
    const source = readFileSync(dist('mouthpiece.mjs'), 'utf8');
    expect(source).not.toMatch(/from ["']@mouthpiece\//);
    const m = (await import(dist('mouthpiece.mjs'))) as Record<string, unknown>;
    expect(typeof m['AvatarSession']).toBe('function');
    expect(m['SessionState']).toMatchObject({ READY: 'READY', ENDED: 'ENDED' });
    expect(m['ErrorCode']).toMatchObject({ SESSION_NOT_FOUND: 'SESSION_NOT_FOUND' });
  });

  it(`is at most ${SDK_BUDGET_GZIP_BYTES / 1024} KiB gzipped and bundles the browser drawing`, () => {
    for (const f of ['mouthpiece.js', 'mouthpiece.mjs']) {
      const source = readFileSync(dist(f));
      expect(gzipSync(source, { level: 9 }).length, f).toBeLessThanOrEqual(SDK_BUDGET_GZIP_BYTES);
      expect(source.toString('utf8'), `${f} draws vector avatars`).toMatch(/createLinearGradient/);
    }
  });

  it('its one .d.ts imports no unpublished package and type-checks on its own', () => {
    const file = dist('mouthpiece.d.ts');
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).not.toMatch(/@mouthpiece\//);
    const program = ts.createProgram([file], {
      noEmit: true,
      strict: true,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
  }, 60_000); // a program with the DOM's types: ≈ 17 s alone on a shared 2-core machine, more beside other files

  it('package.json points import, require and <script> at the bundles, each with its types', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      exports: Record<string, unknown>;
      dependencies?: unknown;
    };
    expect(pkg.exports['.']).toEqual({
      import: { types: './dist/mouthpiece.d.ts', default: './dist/mouthpiece.mjs' },
      require: { types: './dist/mouthpiece.d.cts', default: './dist/mouthpiece.cjs' },
    });
    expect(pkg.exports['./script']).toBe('./dist/mouthpiece.js');
    expect(pkg.dependencies).toBeUndefined(); // everything it runs is bundled in
  });

  it('the UMD file is the module under CommonJS and defines window.Mouthpiece in a page', () => {
    const source = readFileSync(dist('mouthpiece.js'), 'utf8');
    expect(readFileSync(dist('mouthpiece.cjs'), 'utf8')).toBe(source);
    const cjs = createContext({ module: { exports: {} } }) as {
      module: { exports: Record<string, unknown> };
    };
    runInContext(source, cjs);
    expect(typeof cjs.module.exports['AvatarSession']).toBe('function');
    const page = createContext({}) as { self?: unknown; Mouthpiece?: { AvatarSession?: unknown } };
    page.self = page;
    runInContext(source, page);
    expect(typeof page.Mouthpiece?.AvatarSession).toBe('function');
  });

  it('npm pack ships the bundles, their types, the README and the licence, nothing else', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      encoding: 'utf8',
    });
    const files = (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
    expect(files.sort()).toEqual(
      [
        'LICENSE',
        'README.md',
        'dist/mouthpiece.cjs',
        'dist/mouthpiece.d.cts',
        'dist/mouthpiece.d.ts',
        'dist/mouthpiece.js',
        'dist/mouthpiece.mjs',
        'package.json',
      ].sort(),
    );
  });
});
