/**
 * Upload decoding off the media thread: a worker thread (from `dist/`), or in-thread when running
 * from TypeScript sources under the test runner. Rejections for bad files are AudioValidationError.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { alignTranscript, type Alignment, type PhonemeEvent } from '../lipsync/align-transcript.js';
import { RpcClient, type RpcResponse } from '../ipc/rpc.js';
import { AbortedError } from '../speech/synthesis-scheduler.js';
import { AudioValidationError, decodeAudio, type DecodedAudio } from './decode.js';

/** The decoder worker thread's requests (audio/decode-worker.ts answers them). */
export type DecoderWorkerMethods = {
  decode(bytes: Uint8Array): Promise<DecodedAudio>;
  align(pcm48k: Int16Array, reference: Array<{ pcm: Int16Array; phonemes: PhonemeEvent[] }>): Alignment;
};

/** The wire code of a rejected upload (AudioValidationError on both sides). */
export const INVALID = 'invalid_audio';

export interface AudioDecoder {
  decode(bytes: Uint8Array): Promise<DecodedAudio>;
  /**
   * Aligns espeak's synthesis of a transcript to uploaded speech (DTW; see lipsync/align-transcript).
   * `signal` withdraws it: not started when already aborted, its answer dropped when it aborts later.
   */
  align(
    pcm48k: Int16Array,
    reference: Array<{ pcm: Int16Array; phonemes: PhonemeEvent[] }>,
    signal?: AbortSignal,
  ): Promise<Alignment>;
  close(): Promise<void>;
}

export function createAudioDecoder(): AudioDecoder {
  if (import.meta.url.endsWith('.ts')) {
    return {
      decode: decodeAudio,
      align: (pcm48k, reference, signal) =>
        abortable(signal, () => Promise.resolve(alignTranscript({ pcm48k, reference }))),
      close: () => Promise.resolve(),
    };
  }
  const worker = new Worker(fileURLToPath(new URL('./decode-worker.js', import.meta.url)));
  worker.unref();
  const rpc = new RpcClient<DecoderWorkerMethods>({
    post: (req) => worker.postMessage(req),
    error: (code, message) => (code === INVALID ? new AudioValidationError(message) : new Error(message)),
  });
  worker.on('message', (res: RpcResponse) => rpc.receive(res));
  worker.on('error', (err) => rpc.close(err));
  worker.on('exit', () => rpc.close(new Error('the audio decoder worker exited')));
  return {
    decode: (bytes) => rpc.call('decode', [bytes]),
    align: (pcm48k, reference, signal) => abortable(signal, () => rpc.call('align', [pcm48k, reference])),
    async close() {
      rpc.close(new Error('decoder closed'));
      await worker.terminate();
    },
  };
}

/** `run()` unless `signal` has aborted; rejects with AbortedError as soon as it aborts. */
function abortable<T>(signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
  if (!signal) return run();
  if (signal.aborted) return Promise.reject(new AbortedError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new AbortedError());
    signal.addEventListener('abort', onAbort, { once: true });
    run().then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
