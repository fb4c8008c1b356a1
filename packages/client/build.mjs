// Builds the single-file <script> bundle (window.Mouthpiece) next to the tsc ESM output, and
// prints its minified and gzipped size.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
await build({
  entryPoints: [`${here}src/index.ts`],
  bundle: true,
  minify: true,
  format: 'iife',
  globalName: 'Mouthpiece',
  target: ['chrome100', 'safari15', 'firefox100'],
  outfile: `${here}dist/mouthpiece.js`,
  logLevel: 'warning',
});
const js = readFileSync(`${here}dist/mouthpiece.js`);
console.log(
  `dist/mouthpiece.js: ${(js.length / 1024).toFixed(1)} KiB minified, ${(gzipSync(js).length / 1024).toFixed(1)} KiB gzipped`,
);
