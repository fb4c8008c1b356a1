#!/usr/bin/env node
// The `mouthpiece` command as npm links it. It is a committed file, not a build output, so that
// `npm ci` always links the bin (npm skips bins whose file does not exist yet, and `npx` then looks
// for a package of that name on the public registry). In a source checkout it first brings the
// build up to date when it is missing or older than the sources (a fresh clone straight after
// `npm ci`), then runs the built CLI (dist/cli.js). Progress goes to stderr, so `--json` output on
// stdout stays one JSON object.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const serverDir = dirname(dirname(fileURLToPath(import.meta.url)));
const cli = join(serverDir, 'dist', 'cli.js');
// The packages the CLI is built from (the server and what it imports), as tsc -b sees them.
const sourcePackages = ['server', 'protocol', 'engine'].map((p) => join(serverDir, '..', p));

/** Newest modification time of the non-test TypeScript sources under dir (0 if none). */
function newestSource(dir) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
      newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Whether this is a source checkout whose build is missing or older than its sources. */
function needsBuild() {
  if (!existsSync(join(serverDir, 'tsconfig.json')) || !existsSync(join(serverDir, 'src'))) return false;
  let built = Infinity;
  for (const pkg of sourcePackages) {
    const info = join(pkg, 'tsconfig.tsbuildinfo');
    if (!existsSync(info)) return true;
    built = Math.min(built, statSync(info).mtimeMs);
  }
  if (!existsSync(cli)) return true;
  return sourcePackages.some((pkg) => newestSource(join(pkg, 'src')) > built);
}

if (needsBuild()) {
  let tsc;
  try {
    tsc = createRequire(join(serverDir, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    process.stderr.write(
      'mouthpiece: this checkout is not built and TypeScript is not installed; run `npm ci` (with dev dependencies), then try again\n',
    );
    process.exit(1);
  }
  process.stderr.write('mouthpiece: building this checkout (first run after npm ci; about 10 s)…\n');
  const built = spawnSync(process.execPath, [tsc, '-b', join(serverDir, 'tsconfig.json')], {
    stdio: ['ignore', 2, 2],
  });
  if (built.status !== 0) {
    process.stderr.write(
      'mouthpiece: the build failed (output above); `npm run build` shows the same errors\n',
    );
    process.exit(1);
  }
}

await import(pathToFileURL(cli).href);
