/** Worker thread: decodes and validates uploads, and aligns transcripts, off the media thread. */
import { parentPort } from 'node:worker_threads';
import { serveRpc, type RpcHandlers, type RpcRequest } from '../ipc/rpc.js';
import { alignTranscript } from '../lipsync/align-transcript.js';
import { AudioValidationError, decodeAudio, type DecodedAudio } from './decode.js';
import { INVALID, type DecoderWorkerMethods } from './decoder.js';

const port = parentPort;
if (!port) throw new Error('decode-worker must run in a worker thread');
const handlers: RpcHandlers<DecoderWorkerMethods> = {
  decode: (bytes) => decodeAudio(bytes),
  align: (pcm48k, reference) => alignTranscript({ pcm48k, reference }),
};
port.on('message', (req: RpcRequest<DecoderWorkerMethods>) => {
  void serveRpc(handlers, req, (res, transfer) => port.postMessage(res, transfer), {
    codeOf: (err) => (err instanceof AudioValidationError ? INVALID : 'internal'),
    transferOf: (result) =>
      req.method === 'decode' ? [(result as DecodedAudio).pcm.buffer as ArrayBuffer] : [],
  });
});
