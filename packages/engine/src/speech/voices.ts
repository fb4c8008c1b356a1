/**
 * The voices Mouthpiece offers: espeak-ng's, a female and a male one for every language it speaks
 * (espeak-languages.ts; the 23 voices of earlier releases keep their ids, new ones are
 * `espeak-<espeak's code>-female|male`). Pure data: the server's catalog reads it without loading
 * any synthesizer.
 */
import type { VoiceInfo } from '@mouthpiece/protocol';
import { ESPEAK_LANGUAGES, type EspeakLanguage } from './espeak-languages.js';
import type { ProviderName } from './provider.js';

export interface VoiceDef extends VoiceInfo {
  /** Who speaks it (speech/provider.ts). */
  provider: ProviderName;
  /**
   * espeak-ng voice name, with a `+variant` for gender: the voice itself for espeak voices, the
   * reading whose phonemes give another provider's speech its mouth shapes; none when espeak does
   * not speak the voice's language (the audio-only model then drives the mouth).
   */
  espeakVoice?: string;
  /** The provider's own voice name or id (ElevenLabs voice id, OpenAI voice, a local model's speaker). */
  providerVoice?: string;
  /** The provider's model (ElevenLabs `model_id`, OpenAI `model`, a local voice's model folder). */
  model?: string;
  /** Only kana are read (Japanese): kanji must be converted first. */
  kanaOnly?: boolean;
}

const v = (
  id: string,
  name: string,
  language: string,
  gender: VoiceInfo['gender'],
  espeakVoice: string,
  kanaOnly = false,
): VoiceDef => ({
  id,
  name,
  language,
  gender,
  provider: 'espeak',
  espeakVoice,
  ...(kanaOnly ? { kanaOnly } : {}),
});

/** The voices of earlier releases, ids unchanged (their language's native name is added below). */
const FIRST_VOICES: readonly VoiceDef[] = [
  v('en-us-female', 'English (US), female', 'en-US', 'female', 'gmw/en-US+f3'),
  v('en-us-male', 'English (US), male', 'en-US', 'male', 'gmw/en-US+m3'),
  v('en-gb-female', 'English (UK), female', 'en-GB', 'female', 'gmw/en+f4'),
  v('en-gb-male', 'English (UK), male', 'en-GB', 'male', 'gmw/en+m1'),
  v('de-female', 'German, female', 'de-DE', 'female', 'gmw/de+f3'),
  v('de-male', 'German, male', 'de-DE', 'male', 'gmw/de+m3'),
  v('fr-female', 'French, female', 'fr-FR', 'female', 'roa/fr+f3'),
  v('fr-male', 'French, male', 'fr-FR', 'male', 'roa/fr+m3'),
  v('es-female', 'Spanish, female', 'es-ES', 'female', 'roa/es+f3'),
  v('es-male', 'Spanish, male', 'es-ES', 'male', 'roa/es+m3'),
  v('it-female', 'Italian, female', 'it-IT', 'female', 'roa/it+f3'),
  v('it-male', 'Italian, male', 'it-IT', 'male', 'roa/it+m3'),
  v('pt-br-female', 'Portuguese (Brazil), female', 'pt-BR', 'female', 'roa/pt-BR+f3'),
  v('pt-male', 'Portuguese (Portugal), male', 'pt-PT', 'male', 'roa/pt+m3'),
  v('nl-female', 'Dutch, female', 'nl-NL', 'female', 'gmw/nl+f3'),
  v('pl-female', 'Polish, female', 'pl-PL', 'female', 'zlw/pl+f3'),
  v('ru-female', 'Russian, female', 'ru-RU', 'female', 'zle/ru+f3'),
  v('ru-male', 'Russian, male', 'ru-RU', 'male', 'zle/ru+m3'),
  v('hi-female', 'Hindi, female', 'hi-IN', 'female', 'inc/hi+f3'),
  v('zh-female', 'Mandarin Chinese, female', 'zh-CN', 'female', 'sit/cmn+f3'),
  v('zh-male', 'Mandarin Chinese, male', 'zh-CN', 'male', 'sit/cmn+m3'),
  v('ar-male', 'Arabic, male', 'ar', 'male', 'sem/ar+m3'),
  v('ja-female', 'Japanese (kana only), female', 'ja-JP', 'female', 'jpx/ja+f3', true),
];

const GENDER_VARIANT = { female: '+f3', male: '+m3' } as const;

function languageOf(espeakVoice: string | undefined): EspeakLanguage | undefined {
  const id = espeakVoice?.split('+')[0];
  return ESPEAK_LANGUAGES.find((l) => l.espeak === id);
}

/** Every language's female and male voice: the first voices where they exist, new ids elsewhere. */
function allVoices(): VoiceDef[] {
  const out: VoiceDef[] = FIRST_VOICES.map((x) => {
    const native = languageOf(x.espeakVoice)?.native;
    return native ? { ...x, nativeName: native } : { ...x };
  });
  for (const lang of ESPEAK_LANGUAGES)
    for (const gender of ['female', 'male'] as const) {
      if (out.some((x) => x.gender === gender && languageOf(x.espeakVoice) === lang)) continue;
      const code = lang.espeak.split('/').at(-1)!.toLowerCase();
      out.push({
        ...v(
          `espeak-${code}-${gender}`,
          `${lang.english}, ${gender}`,
          lang.tag,
          gender,
          lang.espeak + GENDER_VARIANT[gender],
          lang.espeak === 'jpx/ja',
        ),
        nativeName: lang.native,
      });
    }
  return out;
}

export const VOICES: readonly VoiceDef[] = allVoices();

export const DEFAULT_VOICE_ID = 'en-us-female';

/**
 * The espeak reading (no gender variant) of a BCP 47 language tag: the voice of that exact tag,
 * else of its primary language (the first voices first: `en` reads as American English, `pt` as
 * Brazilian); undefined when espeak does not speak the language.
 */
export function espeakReadingFor(language: string): string | undefined {
  const lang = language.toLowerCase();
  const base = lang.split('-')[0];
  const readings = VOICES.filter((x) => x.espeakVoice !== undefined);
  const pick =
    readings.find((x) => x.language.toLowerCase() === lang) ??
    readings.find((x) => x.language.toLowerCase().split('-')[0] === base);
  return pick?.espeakVoice?.split('+')[0];
}
