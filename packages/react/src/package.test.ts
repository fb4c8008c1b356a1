/** What `npm pack` of @mouthpiece/react ships: the built modules and their types, README, licence. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const dir = fileURLToPath(new URL('..', import.meta.url));

it('ships dist/*.js with their .d.ts, README and LICENSE; react and the SDK are peers', () => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: dir,
    encoding: 'utf8',
  });
  const files = (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
  expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'dist/index.js', 'dist/index.d.ts']));
  expect(
    files.filter((f) => !/^(LICENSE|README\.md|package\.json|dist\/[a-z-]+\.(js|d\.ts))$/.test(f)),
  ).toEqual([]);
  expect(files.filter((f) => f.includes('test'))).toEqual([]);
  const pkg = JSON.parse(readFileSync(`${dir}package.json`, 'utf8')) as Record<
    string,
    Record<string, unknown>
  >;
  expect(pkg['dependencies']).toBeUndefined();
  expect(Object.keys(pkg['peerDependencies']!).sort()).toEqual(['@mouthpiece/client', 'react', 'react-dom']);
  expect(pkg['exports']!['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
});
