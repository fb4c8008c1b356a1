/**
 * The voice providers' part of the configuration (docs/voices.md): read by config.ts from the
 * environment it was given; a provider is on when its key (ElevenLabs) or URL (OpenAI) is set.
 */
import { resolve } from 'node:path';
import { parseVoicesFile, type SpeechConfig } from '@mouthpiece/engine/host';

type Env = Record<string, string | undefined>;

/** The voice variables (part of config.ts's CONFIG_DOCS, rendered into the README). */
export const VOICE_CONFIG_DOCS: ReadonlyArray<{ name: string; default: string; meaning: string }> = [
  {
    name: 'MOUTHPIECE_VOICES_FILE',
    default: 'unset',
    meaning: 'JSON file of extra voices (format in docs/voices.md); a bad file stops start-up',
  },
  {
    name: 'MOUTHPIECE_ELEVENLABS_API_KEY',
    default: 'unset (ElevenLabs off)',
    meaning:
      'turns ElevenLabs voices on; an unlisted `voiceConfig.id` is then tried as an ElevenLabs voice id',
  },
  {
    name: 'MOUTHPIECE_ELEVENLABS_URL',
    default: 'https://api.elevenlabs.io',
    meaning: 'ElevenLabs API base URL',
  },
  {
    name: 'MOUTHPIECE_ELEVENLABS_MODEL',
    default: 'eleven_flash_v2_5',
    meaning: '`model_id` for voices without their own `model`',
  },
  {
    name: 'MOUTHPIECE_OPENAI_TTS_URL',
    default: 'unset (OpenAI-compatible voices off)',
    meaning:
      'OpenAI-compatible speech API base: `https://api.openai.com/v1`, a local Kokoro `http://localhost:8880/v1`',
  },
  {
    name: 'MOUTHPIECE_OPENAI_TTS_API_KEY',
    default: 'unset',
    meaning: 'Bearer key for that API (a local server may need none)',
  },
  { name: 'MOUTHPIECE_OPENAI_TTS_MODEL', default: 'tts-1', meaning: '`model` for voices without their own' },
  {
    name: 'MOUTHPIECE_VOICE_TIMEOUT_MS',
    default: '10000',
    meaning: 'a provider request with no audio this long after it was sent fails its turn (`timeout`)',
  },
  {
    name: 'MOUTHPIECE_VOICE_STALL_TIMEOUT_MS',
    default: '10000',
    meaning: '…and one whose audio stops arriving for this long',
  },
];

/** Voice providers: on when their key (ElevenLabs) or URL (OpenAI-compatible) is set. */
export function speechConfig(
  env: Env,
  int: (name: string, def: number, min?: number, max?: number) => number,
  error: (message: string) => Error,
): SpeechConfig {
  const url = (name: string, raw: string): string => {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw error(`${name} must be an absolute http(s) URL, got "${raw}"`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw error(`${name} must be an absolute http(s) URL, got "${raw}"`);
    return raw.replace(/\/+$/, '');
  };
  const file = env['MOUTHPIECE_VOICES_FILE'];
  let voices: SpeechConfig['voices'] = [];
  if (file) {
    try {
      voices = parseVoicesFile(resolve(file));
    } catch (err) {
      throw error(`MOUTHPIECE_VOICES_FILE: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const elevenKey = env['MOUTHPIECE_ELEVENLABS_API_KEY'] || undefined;
  const openAiUrl = env['MOUTHPIECE_OPENAI_TTS_URL'] || undefined;
  const openAiKey = env['MOUTHPIECE_OPENAI_TTS_API_KEY'] || undefined;
  return {
    voices,
    ...(elevenKey
      ? {
          elevenlabs: {
            url: url(
              'MOUTHPIECE_ELEVENLABS_URL',
              env['MOUTHPIECE_ELEVENLABS_URL'] || 'https://api.elevenlabs.io',
            ),
            apiKey: elevenKey,
            ...(env['MOUTHPIECE_ELEVENLABS_MODEL']
              ? { defaultModel: env['MOUTHPIECE_ELEVENLABS_MODEL'] }
              : {}),
          },
        }
      : {}),
    ...(openAiUrl
      ? {
          openai: {
            url: url('MOUTHPIECE_OPENAI_TTS_URL', openAiUrl),
            ...(openAiKey ? { apiKey: openAiKey } : {}),
            ...(env['MOUTHPIECE_OPENAI_TTS_MODEL']
              ? { defaultModel: env['MOUTHPIECE_OPENAI_TTS_MODEL'] }
              : {}),
          },
        }
      : {}),
    firstByteTimeoutMs: int('MOUTHPIECE_VOICE_TIMEOUT_MS', 10_000, 100, 600_000),
    stallTimeoutMs: int('MOUTHPIECE_VOICE_STALL_TIMEOUT_MS', 10_000, 100, 600_000),
  };
}
