// `npm start`'s prestart: builds only when the build is missing or older than its inputs, so a
// production start (built once, dev dependencies pruned) starts without the dev toolchain and a
// development start after an edit still rebuilds. `npm run build` writes the stamp
// (`node scripts/build-if-stale.mjs --stamp`) after every successful build; this compares the
// newest input's modification time with it. Inputs: every package's src/, package.json,
// tsconfig*.json and build.mjs, and the root's package.json and tsconfig files.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(root, '.build-stamp');
/** What the build makes that a start needs (the CLI, the SDK bundle the server serves). */
const OUTPUTS = ['packages/server/dist/cli.js', 'packages/client/dist/mouthpiece.js'];

/** Newest modification time under path (a file or a folder), 0 when it does not exist. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let n = 0;
  for (const e of readdirSync(path)) n = Math.max(n, newest(join(path, e)));
  return n;
}

function inputs() {
  const files = ['package.json', 'tsconfig.json', 'tsconfig.base.json'].map((f) => join(root, f));
  const packages = join(root, 'packages');
  for (const p of readdirSync(packages)) {
    const dir = join(packages, p);
    if (!statSync(dir).isDirectory()) continue;
    files.push(
      join(dir, 'src'),
      join(dir, 'package.json'),
      join(dir, 'tsconfig.json'),
      join(dir, 'build.mjs'),
    );
  }
  return files;
}

/** Why a build is needed, or undefined when the build is up to date. */
export function staleReason() {
  const missing = OUTPUTS.find((o) => !existsSync(join(root, o)));
  if (missing) return `${missing} is missing`;
  if (!existsSync(STAMP)) return 'no build stamp (built before stamps, or never)';
  const stamp = statSync(STAMP).mtimeMs;
  const changed = inputs().find((f) => newest(f) > stamp);
  return changed ? `${changed.slice(root.length)} changed since the last build` : undefined;
}

if (process.argv.includes('--stamp')) {
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
} else {
  const reason = staleReason();
  if (reason === undefined) {
    process.stderr.write('mouthpiece: the build is up to date (npm run build rebuilds)\n');
  } else {
    process.stderr.write(`mouthpiece: building (${reason})\n`);
    const built = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
    if (built.status !== 0) {
      process.stderr.write(
        'mouthpiece: the build failed (output above); a checkout with dev dependencies pruned cannot build: run npm ci, then npm run build\n',
      );
      process.exit(built.status ?? 1);
    }
  }
}
