/** Worker thread: owns one espeak-ng instance; answers synthesis requests in order. */
import { parentPort } from 'node:worker_threads';
import { serveRpc, type RpcHandlers, type RpcRequest } from '../ipc/rpc.js';
import { Espeak } from './espeak.js';
import { warmUp } from './warm-up.js';
import type { TtsWorkerMethods } from './tts.js';

const port = parentPort;
if (!port) throw new Error('tts-worker must run in a worker thread');
const ready = Espeak.load();
const handlers: RpcHandlers<TtsWorkerMethods> = {
  synthesize: async (text, espeakVoice, speed) => (await ready).synthesize(text, espeakVoice, speed),
};
port.on('message', (req: RpcRequest<TtsWorkerMethods>) => {
  void serveRpc(handlers, req, (res, transfer) => port.postMessage(res, transfer), {
    transferOf: (segment) => [
      (segment as ReturnType<TtsWorkerMethods['synthesize']>).pcm.buffer as ArrayBuffer,
    ],
  });
});
void ready.then((espeak) => warmUp((text) => espeak.synthesize(text, 'en-us', 1)));
