/**
 * Upload decoding off the media thread: a worker thread (from `dist/`), or in-thread when running
 * from TypeScript sources under the test runner. Rejections for bad files are AudioValidationError.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { alignTranscript, type Alignment, type PhonemeEvent } from '../lipsync/align-transcript.js';
import { AudioValidationError, decodeAudio, type DecodedAudio } from './decode.js';

export interface AudioDecoder {
  decode(bytes: Uint8Array): Promise<DecodedAudio>;
  /** Aligns espeak's synthesis of a transcript to uploaded speech (DTW; see lipsync/align-transcript). */
  align(
    pcm48k: Int16Array,
    reference: Array<{ pcm: Int16Array; phonemes: PhonemeEvent[] }>,
  ): Promise<Alignment>;
  close(): Promise<void>;
}

export function createAudioDecoder(): AudioDecoder {
  if (import.meta.url.endsWith('.ts')) {
    return {
      decode: decodeAudio,
      align: (pcm48k, reference) => Promise.resolve(alignTranscript({ pcm48k, reference })),
      close: () => Promise.resolve(),
    };
  }
  const worker = new Worker(fileURLToPath(new URL('./decode-worker.js', import.meta.url)));
  worker.unref();
  const pending = new Map<number, { resolve: (d: never) => void; reject: (e: Error) => void }>();
  let seq = 0;
  worker.on(
    'message',
    (m: { id: number; decoded?: DecodedAudio; alignment?: Alignment; error?: string; invalid?: boolean }) => {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.decoded) p.resolve(m.decoded as never);
      else if (m.alignment) p.resolve(m.alignment as never);
      else
        p.reject(
          m.invalid
            ? new AudioValidationError(m.error ?? 'invalid audio')
            : new Error(m.error ?? 'decoding failed'),
        );
    },
  );
  const failAll = (err: Error): void => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on('error', failAll);
  worker.on('exit', () => failAll(new Error('the audio decoder worker exited')));
  const call = <T>(msg: object): Promise<T> => {
    const id = ++seq;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve, reject });
      worker.postMessage({ id, ...msg });
    });
  };
  return {
    decode: (bytes) => call<DecodedAudio>({ bytes }),
    align: (pcm48k, reference) => call<Alignment>({ op: 'align', pcm48k, reference }),
    async close() {
      failAll(new Error('decoder closed'));
      await worker.terminate();
    },
  };
}
