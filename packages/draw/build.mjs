// Bundles the browser entry (src/browser.ts) the way packages/client bundles the SDK:
//   dist/mouthpiece-draw.js   minified <script> build (defines window.MouthpieceDraw)
//   dist/mouthpiece-draw.mjs  minified ES module
// and prints their sizes; src/bundle-size.test.ts holds the gzipped budget.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const common = {
  entryPoints: [`${here}src/browser.ts`],
  bundle: true,
  minify: true,
  target: ['chrome100', 'safari15', 'firefox100'],
  logLevel: 'warning',
};
await build({
  ...common,
  format: 'iife',
  globalName: 'MouthpieceDraw',
  outfile: `${here}dist/mouthpiece-draw.js`,
});
await build({ ...common, format: 'esm', outfile: `${here}dist/mouthpiece-draw.mjs` });

for (const f of ['mouthpiece-draw.js', 'mouthpiece-draw.mjs']) {
  const b = readFileSync(`${here}dist/${f}`);
  console.log(
    `dist/${f}: ${(b.length / 1024).toFixed(1)} KiB, ${(gzipSync(b).length / 1024).toFixed(1)} KiB gzipped`,
  );
}
