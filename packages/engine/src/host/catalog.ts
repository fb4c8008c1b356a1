/**
 * The catalog, computed without loading any native module (the server process calls this), and
 * the packs behind it, which the pool hands its engine processes (they never read pack folders).
 */
import { BUILTIN_AVATARS_DIR, avatarInfo, readAvatarPacks, type AvatarPack } from '../avatar/catalog.js';
import { DEFAULT_VOICE_ID } from '../speech/voices.js';
import { DEFAULT_SPEECH_CONFIG, VoiceBook, type SpeechConfig } from '../speech/voice-book.js';
import type { EngineCatalog } from '../contract/types.js';

export function engineCatalog(
  extraAvatarDirs: readonly string[] = [],
  size = { width: 512, height: 512 },
  speech: SpeechConfig = DEFAULT_SPEECH_CONFIG,
): EngineCatalog & { errors: string[]; packs: AvatarPack[] } {
  const { packs, errors } = readAvatarPacks([BUILTIN_AVATARS_DIR, ...extraAvatarDirs]);
  const avatars = packs.map((p) => avatarInfo(p, size));
  const book = new VoiceBook(speech);
  return {
    avatars,
    // what a client may see: never a key, a URL or the provider's own voice name
    voices: book.list().map(({ id, name, nativeName, language, gender, provider }) => ({
      id,
      name,
      ...(nativeName ? { nativeName } : {}),
      language,
      gender,
      provider,
    })),
    defaultVoiceId: DEFAULT_VOICE_ID,
    ...(book.unlistedProvider ? { unlistedVoiceProvider: book.unlistedProvider } : {}),
    errors,
    packs,
  };
}
