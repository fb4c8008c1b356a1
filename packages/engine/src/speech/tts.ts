/**
 * Text to speech off the media thread: espeak-ng in a worker thread (from `dist/`), or in-thread
 * when running from TypeScript sources under the test runner (workers cannot load `.ts` there).
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { Espeak } from './espeak.js';
import type { SpeechSegment, SynthesisRequest } from './types.js';
import { findVoice } from './voices.js';

export interface Tts {
  synthesize(req: SynthesisRequest): Promise<SpeechSegment>;
  close(): Promise<void>;
}

type Pending = { resolve: (s: SpeechSegment) => void; reject: (e: Error) => void };

export function createTts(): Tts {
  const workerUrl = new URL('./tts-worker.js', import.meta.url);
  const fromSources = import.meta.url.endsWith('.ts');
  if (fromSources) return inThreadTts();
  const worker = new Worker(fileURLToPath(workerUrl));
  worker.unref();
  const pending = new Map<number, Pending>();
  let seq = 0;
  let closed = false;
  worker.on('message', (msg: { id: number; segment?: SpeechSegment; error?: string }) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.segment) p.resolve(msg.segment);
    else p.reject(new Error(msg.error ?? 'synthesis failed'));
  });
  const failAll = (err: Error): void => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on('error', failAll);
  worker.on('exit', () => failAll(new Error('the TTS worker exited')));
  return {
    synthesize(req) {
      if (closed) return Promise.reject(new Error('TTS is closed'));
      const voice = findVoice(req.voiceId);
      if (!voice) return Promise.reject(new Error(`unknown voice "${req.voiceId}"`));
      const id = ++seq;
      return new Promise<SpeechSegment>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, text: req.text, espeakVoice: voice.espeakVoice, speed: req.speed });
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      failAll(new Error('TTS closed'));
      await worker.terminate();
    },
  };
}

function inThreadTts(): Tts {
  const espeak = Espeak.load();
  return {
    async synthesize(req) {
      const voice = findVoice(req.voiceId);
      if (!voice) throw new Error(`unknown voice "${req.voiceId}"`);
      return (await espeak).synthesize(req.text, voice.espeakVoice, req.speed);
    },
    close: () => Promise.resolve(),
  };
}
