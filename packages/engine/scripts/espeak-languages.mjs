// Prints the voices the bundled espeak-ng data holds, one per line (identifier, espeak's own
// language codes, its name), marking those src/speech/espeak-languages.ts does not list yet.
// Runs against the built dist/: `npx tsc -b && node packages/engine/scripts/espeak-languages.mjs`.
import { Espeak } from '../dist/speech/espeak.js';
import { ESPEAK_LANGUAGES, ESPEAK_UNLISTED } from '../dist/speech/espeak-languages.js';

const espeak = await Espeak.load();
const listed = new Set(ESPEAK_LANGUAGES.map((l) => l.espeak));
for (const v of espeak.voices()) {
  const mark = listed.has(v.identifier) ? ' ' : v.identifier in ESPEAK_UNLISTED ? '-' : '+';
  const codes = v.languages.map((l) => l.name).join(',');
  console.log(`${mark} ${v.identifier.padEnd(24)} ${codes.padEnd(28)} ${v.name.trim()}`);
}
