/**
 * Lip-sync in every language espeak-ng speaks: each language says its numbers and the letters of
 * its script (testing/language-samples.ts), and every phoneme id espeak gives is a sound the
 * viseme map knows, none of them falls to the rest mouth, and a lone modifier goes on with the
 * sound before it. A failure names the language, the id and the letters not mapped.
 */
import { describe, expect, it } from 'vitest';
import { Viseme } from '../face-state.js';
import { Espeak } from '../speech/espeak.js';
import { ESPEAK_LANGUAGES } from '../speech/espeak-languages.js';
import { languageSample } from '../testing/language-samples.js';
import { buildMouthTrack } from './mouth-track.js';
import { continuesPrevious, isMarker, unmappedSounds, visemeOf } from './visemes.js';

describe('lip-sync across espeak-ng languages', () => {
  it('every phoneme of every language maps to a mouth shape (none to the rest mouth)', async () => {
    const espeak = await Espeak.load();
    const faults: string[] = [];
    const seen = new Set<string>();
    for (const lang of ESPEAK_LANGUAGES) {
      const ids = espeak.phonemes(languageSample(lang.tag), lang.espeak);
      expect(ids.filter((id) => id !== '' && !isMarker(id)).length, lang.tag).toBeGreaterThan(20);
      let previous = '';
      for (const id of ids) {
        if (id === '' || isMarker(id)) {
          previous = '';
          continue;
        }
        seen.add(id);
        const unmapped = unmappedSounds(id);
        if (unmapped.length > 0)
          faults.push(`${lang.tag} ${JSON.stringify(id)}: ${unmapped.join(' ')} unmapped`);
        else if (continuesPrevious(id)) {
          if (previous === '')
            faults.push(`${lang.tag} ${JSON.stringify(id)}: a modifier with no sound before it`);
        } else if (visemeOf(id) === Viseme.X) faults.push(`${lang.tag} ${JSON.stringify(id)}: rest mouth`);
        else previous = id;
      }
    }
    expect(faults).toEqual([]);
    expect(seen.size).toBeGreaterThan(400); // the inventory, not a handful of sounds
  }, 120_000);

  it('a lone length mark keeps the mouth of the vowel it lengthens', () => {
    // Latvian's "ˈa" "ː": the ː is an id of its own
    const at = (ms: number): number => (ms * 48_000) / 1000;
    const track = buildMouthTrack({
      phonemes: [
        { ipa: 'ˈa', startSample: at(0) },
        { ipa: 'ː', startSample: at(100) },
        { ipa: 'n', startSample: at(200) },
        { ipa: '', startSample: at(260) },
      ],
      totalSamples: at(400),
    });
    expect(track.visemeAt(at(150))).toBe(Viseme.D);
  });
});
