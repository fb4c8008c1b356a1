/** Worker thread: decodes and validates uploads off the media thread. */
import { parentPort } from 'node:worker_threads';
import { alignTranscript, type PhonemeEvent } from '../lipsync/align-transcript.js';
import { AudioValidationError, decodeAudio } from './decode.js';

type Msg =
  | { id: number; op?: 'decode'; bytes: Uint8Array }
  | {
      id: number;
      op: 'align';
      pcm48k: Int16Array;
      reference: Array<{ pcm: Int16Array; phonemes: PhonemeEvent[] }>;
    };

const port = parentPort;
if (!port) throw new Error('decode-worker must run in a worker thread');
port.on('message', (m: Msg) => {
  if (m.op === 'align') {
    try {
      port.postMessage({
        id: m.id,
        alignment: alignTranscript({ pcm48k: m.pcm48k, reference: m.reference }),
      });
    } catch (err) {
      port.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) });
    }
    return;
  }
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
