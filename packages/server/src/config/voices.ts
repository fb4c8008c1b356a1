/**
 * The voice providers' part of the configuration (docs/voices.md): a provider is on when its key
 * (ElevenLabs) or URL (OpenAI-compatible) is set; the voices file is read and checked here.
 * Local neural voices' models are loaded once at start (checkLocalVoices), in child processes.
 */
import { resolve } from 'node:path';
import {
  LocalVoiceUnusable,
  parseVoicesFile,
  probeLocalVoices,
  type SpeechConfig,
} from '@mouthpiece/engine/config';
import { httpUrl } from './checks.js';
import { ConfigError } from './env-reader.js';
import type { EnvValues } from './spec.js';

export function speechSettings(v: EnvValues): SpeechConfig {
  const file = v.MOUTHPIECE_VOICES_FILE;
  let voices: SpeechConfig['voices'] = [];
  if (file) {
    try {
      voices = parseVoicesFile(resolve(file));
    } catch (err) {
      throw new ConfigError(`MOUTHPIECE_VOICES_FILE: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const elevenKey = v.MOUTHPIECE_ELEVENLABS_API_KEY;
  const openAiUrl = v.MOUTHPIECE_OPENAI_TTS_URL;
  const openAiKey = v.MOUTHPIECE_OPENAI_TTS_API_KEY;
  return {
    voices,
    ...(elevenKey
      ? {
          elevenlabs: {
            url: httpUrl('MOUTHPIECE_ELEVENLABS_URL', v.MOUTHPIECE_ELEVENLABS_URL),
            apiKey: elevenKey,
            defaultModel: v.MOUTHPIECE_ELEVENLABS_MODEL,
          },
        }
      : {}),
    ...(openAiUrl
      ? {
          openai: {
            url: httpUrl('MOUTHPIECE_OPENAI_TTS_URL', openAiUrl),
            ...(openAiKey ? { apiKey: openAiKey } : {}),
            defaultModel: v.MOUTHPIECE_OPENAI_TTS_MODEL,
          },
        }
      : {}),
    firstByteTimeoutMs: v.MOUTHPIECE_VOICE_TIMEOUT_MS,
    stallTimeoutMs: v.MOUTHPIECE_VOICE_STALL_TIMEOUT_MS,
  };
}

/**
 * Loads each local voice's model in a short-lived child process (the server starts no engine
 * until they all load); a model that does not load stops start-up with a message naming it.
 */
export async function checkLocalVoices(speech: SpeechConfig): Promise<void> {
  try {
    await probeLocalVoices(speech.voices);
  } catch (err) {
    if (err instanceof LocalVoiceUnusable) throw new ConfigError(`MOUTHPIECE_VOICES_FILE: ${err.message}`);
    throw err;
  }
}
