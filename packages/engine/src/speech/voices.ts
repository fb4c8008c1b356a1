/**
 * The voices Mouthpiece offers (espeak-ng voices with gender variants). Pure data: the server's
 * catalog reads it without loading any synthesizer.
 */
import type { VoiceInfo } from '@mouthpiece/protocol';
import type { ProviderName } from './provider.js';

export interface VoiceDef extends VoiceInfo {
  /** Who speaks it (speech/provider.ts). */
  provider: ProviderName;
  /**
   * espeak-ng voice name, with a `+variant` for gender: the voice itself for espeak voices, the
   * reading whose phonemes give another provider's speech its mouth shapes.
   */
  espeakVoice: string;
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

export const VOICES: readonly VoiceDef[] = [
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

export const DEFAULT_VOICE_ID = 'en-us-female';

/** The espeak reading (no gender variant) closest to a BCP 47 language tag; English if none. */
export function espeakReadingFor(language: string): string {
  const lang = language.toLowerCase();
  const base = lang.split('-')[0];
  const pick =
    VOICES.find((x) => x.language.toLowerCase() === lang) ??
    VOICES.find((x) => x.language.toLowerCase().split('-')[0] === base);
  return (pick?.espeakVoice ?? 'gmw/en-US').split('+')[0]!;
}
