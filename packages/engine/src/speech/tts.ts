/**
 * Text to speech off the media thread: espeak-ng in a worker thread (from `dist/`), or in-thread
 * when running from TypeScript sources under the test runner (workers cannot load `.ts` there).
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { Espeak } from './espeak.js';
import { RpcClient, type RpcResponse } from '../ipc/rpc.js';
import type { SpeechSegment, SynthesisRequest } from './types.js';

export interface Tts {
  synthesize(req: SynthesisRequest): Promise<SpeechSegment>;
  close(): Promise<void>;
}

/** espeak-ng by its own voice names (any reading, not only the listed voices). */
export interface EspeakSynth {
  synthesize(text: string, espeakVoice: string, speed: number): Promise<SpeechSegment>;
  close(): Promise<void>;
}

/** The TTS worker thread's requests (speech/tts-worker.ts answers them). */
export type TtsWorkerMethods = {
  synthesize(text: string, espeakVoice: string, speed: number): SpeechSegment;
};

export function createEspeak(): EspeakSynth {
  if (import.meta.url.endsWith('.ts')) return inThreadEspeak();
  const worker = new Worker(fileURLToPath(new URL('./tts-worker.js', import.meta.url)));
  worker.unref();
  const rpc = new RpcClient<TtsWorkerMethods>({
    post: (req) => worker.postMessage(req),
    error: (_code, message) => new Error(message),
  });
  worker.on('message', (res: RpcResponse) => rpc.receive(res));
  worker.on('error', (err) => rpc.close(err));
  worker.on('exit', () => rpc.close(new Error('the TTS worker exited')));
  let closed = false;
  return {
    synthesize(text, espeakVoice, speed) {
      if (closed) return Promise.reject(new Error('TTS is closed'));
      return rpc.call('synthesize', [text, espeakVoice, speed]);
    },
    async close() {
      if (closed) return;
      closed = true;
      rpc.close(new Error('TTS closed'));
      await worker.terminate();
    },
  };
}

function inThreadEspeak(): EspeakSynth {
  const espeak = Espeak.load();
  return {
    synthesize: async (text, espeakVoice, speed) => (await espeak).synthesize(text, espeakVoice, speed),
    close: () => Promise.resolve(),
  };
}
