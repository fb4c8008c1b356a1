import { describe, expect, it } from 'vitest';
import { Espeak } from './espeak.js';
import { ESPEAK_LANGUAGES, ESPEAK_UNLISTED } from './espeak-languages.js';
import { VOICES, espeakReadingFor } from './voices.js';

const FIRST_IDS = [
  'en-us-female',
  'en-us-male',
  'en-gb-female',
  'en-gb-male',
  'de-female',
  'de-male',
  'fr-female',
  'fr-male',
  'es-female',
  'es-male',
  'it-female',
  'it-male',
  'pt-br-female',
  'pt-male',
  'nl-female',
  'pl-female',
  'ru-female',
  'ru-male',
  'hi-female',
  'zh-female',
  'zh-male',
  'ar-male',
  'ja-female',
];

describe('every language espeak-ng speaks', () => {
  it('the table lists exactly the voices of the bundled data (bar the unlisted, with reasons)', async () => {
    const data = (await Espeak.load()).voices().map((v) => v.identifier);
    const listed = ESPEAK_LANGUAGES.map((l) => l.espeak);
    expect(data.filter((id) => !listed.includes(id) && !(id in ESPEAK_UNLISTED))).toEqual([]);
    expect(listed.filter((id) => !data.includes(id))).toEqual([]);
    expect(Object.keys(ESPEAK_UNLISTED).filter((id) => !data.includes(id))).toEqual([]);
    expect(new Set(ESPEAK_LANGUAGES.map((l) => l.tag)).size).toBe(ESPEAK_LANGUAGES.length);
    for (const l of ESPEAK_LANGUAGES) expect(l.tag, l.espeak).toMatch(/^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$/);
  });

  it('a female and a male voice per language, the earlier 23 ids first and unchanged', () => {
    expect(VOICES.slice(0, FIRST_IDS.length).map((v) => v.id)).toEqual(FIRST_IDS);
    expect(VOICES.find((v) => v.id === 'de-female')).toMatchObject({
      name: 'German, female',
      language: 'de-DE',
      espeakVoice: 'gmw/de+f3',
      nativeName: 'Deutsch',
    });
    expect(new Set(VOICES.map((v) => v.id)).size).toBe(VOICES.length);
    for (const lang of ESPEAK_LANGUAGES)
      for (const gender of ['female', 'male'] as const) {
        const voice = VOICES.filter(
          (v) => v.espeakVoice?.split('+')[0] === lang.espeak && v.gender === gender,
        );
        expect(voice, `${lang.espeak} ${gender}`).toHaveLength(1);
        expect(voice[0]!.nativeName).toBe(lang.native);
        expect(voice[0]!.language).toBe(lang.tag);
      }
    expect(VOICES.find((v) => v.id === 'espeak-fi-female')).toMatchObject({
      name: 'Finnish, female',
      nativeName: 'suomi',
      language: 'fi',
      gender: 'female',
      provider: 'espeak',
    });
    expect(VOICES.find((v) => v.id === 'espeak-nl-male')?.language).toBe('nl-NL'); // Dutch had only a female
    expect(VOICES.find((v) => v.id === 'espeak-ja-male')?.kanaOnly).toBe(true);
  });

  it("a language tag's espeak reading: the exact tag, else its primary language; none if espeak does not speak it", () => {
    expect(espeakReadingFor('fi')).toBe('urj/fi');
    expect(espeakReadingFor('FI-fi')).toBe('urj/fi');
    expect(espeakReadingFor('en')).toBe('gmw/en-US');
    expect(espeakReadingFor('en-GB')).toBe('gmw/en');
    expect(espeakReadingFor('pt')).toBe('roa/pt-BR');
    expect(espeakReadingFor('pt-PT')).toBe('roa/pt');
    expect(espeakReadingFor('es-419')).toBe('roa/es-419');
    expect(espeakReadingFor('sw-KE')).toBe('bnt/sw');
    expect(espeakReadingFor('xh')).toBeUndefined(); // isiXhosa: not in espeak-ng
    expect(espeakReadingFor('tlh')).toBe('art/piqd');
  });
});
