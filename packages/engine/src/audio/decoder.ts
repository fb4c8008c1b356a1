/**
 * Upload decoding off the media thread: a worker thread (from `dist/`), or in-thread when running
 * from TypeScript sources under the test runner. Rejections for bad files are AudioValidationError.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { alignTranscript, type Alignment, type PhonemeEvent } from '../lipsync/align-transcript.js';
import { RpcClient, type RpcResponse } from '../host/rpc.js';
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
  const rpc = new RpcClient<DecoderWorkerMethods>({
    post: (req) => worker.postMessage(req),
    error: (code, message) => (code === INVALID ? new AudioValidationError(message) : new Error(message)),
  });
  worker.on('message', (res: RpcResponse) => rpc.receive(res));
  worker.on('error', (err) => rpc.close(err));
  worker.on('exit', () => rpc.close(new Error('the audio decoder worker exited')));
  return {
    decode: (bytes) => rpc.call('decode', [bytes]),
    align: (pcm48k, reference) => rpc.call('align', [pcm48k, reference]),
    async close() {
      rpc.close(new Error('decoder closed'));
      await worker.terminate();
    },
  };
}
