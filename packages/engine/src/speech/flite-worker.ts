/** Worker thread: owns the compiled Flite module; answers synthesis requests in order. */
import { parentPort } from 'node:worker_threads';
import { serveRpc, type RpcHandlers, type RpcRequest } from '../host/rpc.js';
import { Flite, type FliteSpeech } from './flite.js';
import type { FliteWorkerMethods } from './providers/flite.js';

const port = parentPort;
if (!port) throw new Error('flite-worker must run in a worker thread');
const ready = Flite.load();
const handlers: RpcHandlers<FliteWorkerMethods> = {
  synthesize: async (text, voice, speed) => (await ready).synthesize(text, voice, speed),
};
port.on('message', (req: RpcRequest<FliteWorkerMethods>) => {
  void serveRpc(handlers, req, (res, transfer) => port.postMessage(res, transfer), {
    transferOf: (speech) => [(speech as FliteSpeech).pcm.buffer as ArrayBuffer],
  });
});
