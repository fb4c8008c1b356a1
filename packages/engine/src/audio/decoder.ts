/**
 * Upload decoding off the media thread: a worker thread (from `dist/`), or in-thread when running
 * from TypeScript sources under the test runner. Rejections for bad files are AudioValidationError.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { AudioValidationError, decodeAudio, type DecodedAudio } from './decode.js';

export interface AudioDecoder {
  decode(bytes: Uint8Array): Promise<DecodedAudio>;
  close(): Promise<void>;
}

export function createAudioDecoder(): AudioDecoder {
  if (import.meta.url.endsWith('.ts')) return { decode: decodeAudio, close: () => Promise.resolve() };
  const worker = new Worker(fileURLToPath(new URL('./decode-worker.js', import.meta.url)));
  worker.unref();
  const pending = new Map<number, { resolve: (d: DecodedAudio) => void; reject: (e: Error) => void }>();
  let seq = 0;
  worker.on('message', (m: { id: number; decoded?: DecodedAudio; error?: string; invalid?: boolean }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.decoded) p.resolve(m.decoded);
    else
      p.reject(
        m.invalid
          ? new AudioValidationError(m.error ?? 'invalid audio')
          : new Error(m.error ?? 'decoding failed'),
      );
  });
  const failAll = (err: Error): void => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on('error', failAll);
  worker.on('exit', () => failAll(new Error('the audio decoder worker exited')));
  return {
    decode(bytes) {
      const id = ++seq;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, bytes });
      });
    },
    async close() {
      failAll(new Error('decoder closed'));
      await worker.terminate();
    },
  };
}
