/** Worker thread: decodes and validates uploads off the media thread. */
import { parentPort } from 'node:worker_threads';
import { AudioValidationError, decodeAudio } from './decode.js';

const port = parentPort;
if (!port) throw new Error('decode-worker must run in a worker thread');
port.on('message', (m: { id: number; bytes: Uint8Array }) => {
  decodeAudio(m.bytes)
    .then((d) => port.postMessage({ id: m.id, decoded: d }, [d.pcm.buffer as ArrayBuffer]))
    .catch((err: unknown) =>
      port.postMessage({
        id: m.id,
        error: err instanceof Error ? err.message : String(err),
        invalid: err instanceof AudioValidationError,
      }),
    );
});
