/**
 * The voices file's check of a local neural voice (`"provider": "local"`, docs/voices.md): its
 * `model` folder, relative to the voices file, must hold a model sherpa-onnx can play
 * (speech/local-model.ts), and its optional `providerVoice` is a speaker number. Loading the model
 * is the start-up check's (speech/local-probe.ts), not this one's.
 */
import { dirname, resolve } from 'node:path';
import { LocalModelError, readLocalModel } from './local-model.js';

export type LocalEntryCheck =
  | { ok: true; model: string; speaker?: string }
  | { ok: false; field: 'model' | 'providerVoice'; fault: string };

export function localEntry(voicesFile: string, model: string, providerVoice?: string): LocalEntryCheck {
  if (providerVoice !== undefined && !/^\d{1,6}$/.test(providerVoice))
    return { ok: false, field: 'providerVoice', fault: 'of a local voice is its speaker number (0, 1, …)' };
  const dir = resolve(dirname(voicesFile), model);
  try {
    readLocalModel(dir);
  } catch (err) {
    if (err instanceof LocalModelError) return { ok: false, field: 'model', fault: err.message };
    throw err;
  }
  return { ok: true, model: dir, ...(providerVoice !== undefined ? { speaker: providerVoice } : {}) };
}
