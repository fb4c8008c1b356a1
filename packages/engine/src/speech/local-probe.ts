/**
 * The start-up check of local neural voices (docs/voices.md): each voice's model is loaded, and
 * speaks one word, in a short-lived child process (speech/local-process.ts --probe), because a model
 * that does not load aborts its process. The server runs it before it starts its engines; a failure
 * stops start-up with a message naming the voice and its folder. No native module is loaded here.
 */
import { execFile } from 'node:child_process';
import { builtEntry } from '../ipc/child-job.js';
import type { VoiceEntry } from './voice-book.js';
import { CodedError } from '@mouthpiece/protocol';

/** A local voice whose model does not load or speak. */
export class LocalVoiceUnusable extends CodedError {
  static override code = 'ERR_LOCAL_VOICE_UNUSABLE';
  readonly voiceId: string;
  readonly modelDir: string;
  constructor(voiceId: string, modelDir: string, why: string) {
    super(`local voice "${voiceId}": the model in ${modelDir} does not load: ${why}`);
    this.name = 'LocalVoiceUnusable';
    this.voiceId = voiceId;
    this.modelDir = modelDir;
  }
}

export interface LocalProbeResult {
  voiceId: string;
  sampleRateHz: number;
  speakers: number;
}

const PROBE_TIMEOUT_MS = 120_000;

function probeOne(entry: VoiceEntry & { model: string }): Promise<LocalProbeResult> {
  const args = [builtEntry('speech/local-process.js'), '--probe', entry.model, entry.providerVoice ?? '0'];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--no-warnings', ...args],
      { timeout: PROBE_TIMEOUT_MS, maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        if (!err) {
          const answer = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Omit<
            LocalProbeResult,
            'voiceId'
          >;
          resolve({ voiceId: entry.id, ...answer });
          return;
        }
        const lines = stderr
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean);
        // onnxruntime's message is the "what():" line of an abort; otherwise our own last line
        const what = lines
          .find((l) => l.startsWith('what():'))
          ?.slice(7)
          .trim();
        const detail = what ?? lines.at(-1) ?? `exited with ${err.signal ?? err.code}`;
        const how = err.signal ? ` (the process aborted: ${err.signal})` : '';
        reject(new LocalVoiceUnusable(entry.id, entry.model, `${detail.slice(0, 400)}${how}`));
      },
    );
  });
}

/** Loads every local voice's model in turn; rejects with LocalVoiceUnusable for the first that fails. */
export async function probeLocalVoices(voices: readonly VoiceEntry[]): Promise<LocalProbeResult[]> {
  const results: LocalProbeResult[] = [];
  for (const v of voices)
    if (v.provider === 'local' && v.model) results.push(await probeOne({ ...v, model: v.model }));
  return results;
}
