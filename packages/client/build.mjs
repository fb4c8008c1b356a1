// Builds the SDK for use outside this repository, next to the tsc output:
//   dist/mouthpiece.js    single-file UMD build: in a <script> it defines window.Mouthpiece (served at
//                         /sdk/mouthpiece.js), under CommonJS or AMD it is the module
//   dist/mouthpiece.cjs   the same file, named so that Node and bundlers load it as CommonJS (`require`)
//   dist/mouthpiece.mjs   self-contained ES module (the protocol package and @mouthpiece/draw's
//                         browser drawing, for `render: 'client'`, bundled in)
//   dist/mouthpiece.d.ts  its types in one file, with no import of unpublished packages (and a
//                         copy as mouthpiece.d.cts, the types of the CommonJS file)
// and prints their sizes. The types are regenerated only when a source is newer than them.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const common = {
  entryPoints: [`${here}src/index.ts`],
  bundle: true,
  target: ['chrome100', 'safari15', 'firefox100'],
  logLevel: 'warning',
};
// UMD: an IIFE whose value the wrapper hands to AMD, CommonJS, or the page as window.Mouthpiece
const umd = await build({ ...common, minify: true, format: 'iife', globalName: 'M', write: false });
const wrapped =
  "(function(r,f){typeof define=='function'&&define.amd?define([],f):typeof module=='object'&&module.exports?module.exports=f():r.Mouthpiece=f()})(typeof self<'u'?self:this,function(){" +
  umd.outputFiles[0].text +
  'return M});\n';
writeFileSync(`${here}dist/mouthpiece.js`, wrapped);
writeFileSync(`${here}dist/mouthpiece.cjs`, wrapped);
await build({ ...common, minify: false, format: 'esm', outfile: `${here}dist/mouthpiece.mjs` });

const types = `${here}dist/mouthpiece.d.ts`;
const newest = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
    const p = join(dir, e.name);
    return Math.max(m, e.isDirectory() ? newest(p) : e.name.endsWith('.ts') ? statSync(p).mtimeMs : 0);
  }, 0);
const sources = Math.max(
  newest(`${here}src`),
  newest(`${here}../protocol/src`),
  newest(`${here}../draw/src`),
);
if (!existsSync(types) || statSync(types).mtimeMs < sources) {
  execFileSync(
    process.execPath,
    [
      fileURLToPath(import.meta.resolve('dts-bundle-generator/dist/bin/dts-bundle-generator.js')),
      '--silent',
      '--no-banner',
      '--project',
      `${here}tsconfig.json`,
      '--external-inlines',
      '@mouthpiece/protocol',
      '@mouthpiece/draw',
      '-o',
      types,
      `${here}src/index.ts`,
    ],
    { stdio: 'inherit' },
  );
}

copyFileSync(types, `${here}dist/mouthpiece.d.cts`);

for (const f of ['mouthpiece.js', 'mouthpiece.mjs', 'mouthpiece.d.ts']) {
  const b = readFileSync(`${here}dist/${f}`);
  console.log(
    `dist/${f}: ${(b.length / 1024).toFixed(1)} KiB, ${(gzipSync(b).length / 1024).toFixed(1)} KiB gzipped`,
  );
}
