/**
 * Every voice an engine can speak with: the built-in espeak voices, the voices file's entries of
 * configured providers, and (with ElevenLabs configured) any ElevenLabs voice id. Pure data: the
 * server's catalog and config read it without loading a synthesizer.
 */
import { readFileSync } from 'node:fs';
import { ELEVENLABS_VOICE_ID, type VoiceInfo } from '@mouthpiece/protocol';
import { fliteWasmPath } from './flite.js';
import { localEntry } from './local-entry.js';
import type { ProviderName } from './provider.js';
import { VOICES, espeakReadingFor, type VoiceDef } from './voices.js';

/** One voice of the voices file (docs/voices.md). */
export interface VoiceEntry {
  id: string;
  provider: Exclude<ProviderName, 'espeak' | 'flite'>;
  /** Required but for local voices (their speaker id, default 0). */
  providerVoice?: string;
  /** A local voice's model folder (absolute). */
  model?: string;
  name: string;
  language: string;
  gender: VoiceInfo['gender'];
}

/** How an engine reaches its voice providers (keys stay in the engine processes). */
export interface SpeechConfig {
  voices: VoiceEntry[];
  elevenlabs?: { url: string; apiKey: string; defaultModel?: string };
  openai?: { url: string; apiKey?: string; defaultModel?: string };
  /** A provider request with no audio byte after this long fails (`timeout`). */
  firstByteTimeoutMs: number;
  /** …and one whose audio stops arriving for this long. */
  stallTimeoutMs: number;
}

export const DEFAULT_SPEECH_CONFIG: SpeechConfig = {
  voices: [],
  firstByteTimeoutMs: 10_000,
  stallTimeoutMs: 10_000,
};

/** Flite's CMU voices, embedded (docs/voices.md): listed when the npm package is installed. */
export const FLITE_VOICE_DEFS: readonly VoiceDef[] = [
  ['en-us-natural-female', 'English (US), female, embedded Flite (slt)', 'en-US', 'female', 'slt'],
  ['en-us-natural-male', 'English (US), male, embedded Flite (rms)', 'en-US', 'male', 'rms'],
  ['en-gb-natural-male', 'English (Scottish), male, embedded Flite (awb)', 'en-GB', 'male', 'awb'],
].map(([id, name, language, gender, providerVoice]) => ({
  id: id!,
  name: name!,
  language: language!,
  gender: gender as VoiceDef['gender'],
  provider: 'flite',
  espeakVoice: espeakReadingFor(language!)!,
  providerVoice: providerVoice!,
}));

let fliteInstalled: boolean | undefined;
/** Whether the Flite voices can speak here (the package is installed; detected once). */
export function fliteAvailable(): boolean {
  return (fliteInstalled ??= fliteWasmPath() !== undefined);
}

export const ELEVENLABS_DEFAULT_MODEL = 'eleven_flash_v2_5';
export const OPENAI_DEFAULT_MODEL = 'tts-1';

export class VoiceBook {
  readonly #config: SpeechConfig;
  readonly #voices: VoiceDef[];

  constructor(config: SpeechConfig = DEFAULT_SPEECH_CONFIG) {
    this.#config = config;
    const usable = config.voices.filter((v) => this.providerOn(v.provider));
    this.#voices = [
      ...VOICES,
      ...(fliteAvailable() ? FLITE_VOICE_DEFS : []),
      ...usable.map((v): VoiceDef => ({
        id: v.id,
        name: v.name,
        language: v.language,
        gender: v.gender,
        provider: v.provider,
        espeakVoice: espeakReadingFor(v.language),
        ...(v.providerVoice !== undefined ? { providerVoice: v.providerVoice } : {}),
        ...(v.model ? { model: v.model } : {}),
      })),
    ];
  }

  providerOn(p: ProviderName): boolean {
    if (p === 'flite') return fliteAvailable();
    if (p === 'local') return true; // checked at start-up (speech/local-probe.ts)
    return p === 'espeak' || !!this.#config[p];
  }

  /** The listed voices (what GET /v1/voices shows). */
  list(): readonly VoiceDef[] {
    return this.#voices;
  }

  /** Which provider takes voice ids that are not listed (ElevenLabs when it is configured). */
  get unlistedProvider(): ProviderName | undefined {
    return this.#config.elevenlabs ? 'elevenlabs' : undefined;
  }

  find(id: string): VoiceDef | undefined {
    const listed = this.#voices.find((v) => v.id === id);
    if (listed) return listed;
    if (this.#config.elevenlabs && ELEVENLABS_VOICE_ID.test(id))
      return {
        id,
        name: id,
        language: 'en',
        gender: 'neutral',
        provider: 'elevenlabs',
        espeakVoice: espeakReadingFor('en'),
        providerVoice: id,
      };
    return undefined;
  }
}

/**
 * Reads and checks a voices file; throws an Error naming the file and the field at fault.
 * `{voices: [{id, provider, providerVoice, model?, name, language, gender}]}`; a local voice's
 * `model` is its folder (relative to the file's), checked by speech/local-model.ts.
 */
export function parseVoicesFile(file: string): VoiceEntry[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`voices file ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const fail = (field: string, what: string): never => {
    throw new Error(`voices file ${file}: "${field}" ${what}`);
  };
  if (typeof raw !== 'object' || raw === null || !Array.isArray((raw as { voices?: unknown }).voices))
    fail('voices', 'must be an array (the file is {"voices": [...]})');
  const list = (raw as { voices: unknown[] }).voices;
  const seen = new Set([...VOICES, ...FLITE_VOICE_DEFS].map((v) => v.id));
  return list.map((item, i): VoiceEntry => {
    const at = (k: string): string => `voices[${i}].${k}`;
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      fail(`voices[${i}]`, 'must be an object');
    const o = item as Record<string, unknown>;
    const str = (k: string, required: boolean, max = 200): string | undefined => {
      const v = o[k];
      if (v === undefined && !required) return undefined;
      if (typeof v !== 'string' || v.trim() === '' || v.length > max)
        fail(at(k), `must be a non-empty string of at most ${max} characters`);
      return v as string;
    };
    const id = str('id', true, 100)!;
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id)) fail(at('id'), 'may hold only letters, digits, . _ -');
    if (seen.has(id)) fail(at('id'), `"${id}" is already a voice`);
    seen.add(id);
    const provider = o['provider'];
    if (provider !== 'elevenlabs' && provider !== 'openai' && provider !== 'local')
      fail(at('provider'), 'must be "elevenlabs", "openai" or "local"');
    const gender = o['gender'] ?? 'neutral';
    if (gender !== 'female' && gender !== 'male' && gender !== 'neutral')
      fail(at('gender'), 'must be "female", "male" or "neutral"');
    const language = str('language', true, 35)!;
    if (!/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(language))
      fail(at('language'), 'must be a language tag like en-US');
    let model = str('model', false);
    let providerVoice: string | undefined;
    if (provider === 'local') {
      const local = localEntry(file, str('model', true)!, str('providerVoice', false));
      if (!local.ok) return fail(at(local.field), local.fault);
      model = local.model;
      providerVoice = local.speaker;
    } else providerVoice = str('providerVoice', true)!;
    return {
      id,
      provider: provider as VoiceEntry['provider'],
      ...(providerVoice !== undefined ? { providerVoice } : {}),
      ...(model ? { model } : {}),
      name: str('name', true)!,
      language,
      gender: gender as VoiceEntry['gender'],
    };
  });
}
