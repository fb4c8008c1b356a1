/** The catalog, computed without loading any native module (the server process calls this). */
import { BUILTIN_AVATARS_DIR, readAvatarCatalog } from '../avatar/catalog.js';
import { DEFAULT_VOICE_ID, VOICES } from '../speech/voices.js';
import type { EngineCatalog } from './types.js';

export function engineCatalog(
  extraAvatarDirs: readonly string[] = [],
  size = { width: 512, height: 512 },
): EngineCatalog & { errors: string[] } {
  const { avatars, errors } = readAvatarCatalog([BUILTIN_AVATARS_DIR, ...extraAvatarDirs], size);
  return {
    avatars,
    voices: VOICES.map(({ id, name, language, gender }) => ({ id, name, language, gender })),
    defaultVoiceId: DEFAULT_VOICE_ID,
    errors,
  };
}
