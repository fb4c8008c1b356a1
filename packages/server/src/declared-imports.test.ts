/**
 * Packages that stand alone: every package module a package's runtime code imports is declared in
 * that package's package.json (dependencies, optionalDependencies or peerDependencies), so an
 * `npm install` of the package outside this repository brings it. Inside the monorepo an
 * undeclared import still resolves through the root node_modules, which is how the server ran for
 * months without declaring @mouthpiece/engine. Runtime code: src/**.ts less tests and type-only
 * imports (erased by tsc); for a package whose published files are bundles (its build inlines what
 * it imports), devDependencies count too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const packagesDir = join(root, 'packages');

/** Packages whose published files are esbuild bundles (packages/client/build.mjs). */
const BUNDLED = new Set(['@mouthpiece/client']);

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  exports?: unknown;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs)$/.test(e.name) && !/\.test(-d)?\.ts$/.test(e.name) && !e.name.endsWith('.d.ts')
      ? [path]
      : [];
  });
}

/** The bare specifiers a module imports at run time (static, side-effect, dynamic and re-exports). */
export function runtimeImports(code: string): string[] {
  const found: string[] = [];
  const patterns = [
    /^\s*import\s+(?!type\s)[^'"]*?\sfrom\s+['"]([^'"]+)['"]/gm,
    /^\s*import\s+['"]([^'"]+)['"]/gm,
    /^\s*export\s+(?!type\s)[^'"]*?\sfrom\s+['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) for (const m of code.matchAll(re)) found.push(m[1]!);
  return found.filter((s) => !s.startsWith('.') && !s.startsWith('/'));
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`; builtins → undefined. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const packages = readdirSync(packagesDir).map((dir) => ({
  dir: join(packagesDir, dir),
  manifest: JSON.parse(readFileSync(join(packagesDir, dir, 'package.json'), 'utf8')) as Manifest,
}));

describe('every runtime import is declared by the package that imports it', () => {
  it('reads imports as the scan expects', () => {
    const code = [
      "import type { A } from 'types-only';",
      "import { type B, c } from 'fastify';",
      "import '@scope/side-effect/register';",
      "export { d } from 'reexported';",
      "export type { E } from 'type-reexport';",
      "const m = await import('sherpa-onnx-node');",
      "import { x } from './local.js';",
      "import { y } from 'node:fs';",
    ].join('\n');
    expect(runtimeImports(code).map(packageOf).filter(Boolean)).toEqual([
      'fastify',
      '@scope/side-effect',
      'reexported',
      'sherpa-onnx-node',
    ]);
    expect(packageOf('fs/promises')).toBeUndefined();
  });

  for (const { dir, manifest } of packages)
    it(manifest.name, () => {
      const declared = new Set([
        manifest.name,
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.optionalDependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {}),
        ...(BUNDLED.has(manifest.name) ? Object.keys(manifest.devDependencies ?? {}) : []),
      ]);
      const undeclared: string[] = [];
      // src/testing is runtime code only where the package exports it (@mouthpiece/engine/testing)
      const testingExported = JSON.stringify(manifest.exports ?? {}).includes('"./testing"');
      const files = sourceFiles(join(dir, 'src')).filter(
        (f) => testingExported || !relative(dir, f).startsWith(join('src', 'testing')),
      );
      for (const file of files) {
        for (const spec of runtimeImports(readFileSync(file, 'utf8'))) {
          const pkg = packageOf(spec);
          if (pkg !== undefined && !declared.has(pkg))
            undeclared.push(`${relative(root, file)} imports ${spec}`);
        }
      }
      expect(
        undeclared,
        `declare these in ${relative(root, dir)}/package.json (dependencies; devDependencies only for test code)`,
      ).toEqual([]);
    });
});
