/**
 * A Flite child process (forked by providers/flite.ts): Flite's WASI build crashes its whole
 * process (SIGSEGV) after some hundred sentences, so it never runs inside an engine process. This
 * one answers synthesis requests in order over IPC; when it dies, only its current sentence fails.
 */
import { serveRpc, type RpcHandlers, type RpcRequest } from '../ipc/rpc.js';
import { Flite } from './flite.js';
import type { FliteWorkerMethods } from './providers/flite.js';

if (!process.send) {
  console.error('flite-process must be started by the Flite provider (it needs an IPC channel)');
  process.exit(1);
}
const ready = Flite.load();
const handlers: RpcHandlers<FliteWorkerMethods> = {
  synthesize: async (text, voice, speed) => (await ready).synthesize(text, voice, speed),
};
process.on('message', (req: RpcRequest<FliteWorkerMethods>) => {
  void serveRpc(handlers, req, (res) => {
    if (process.connected) process.send!(res);
  });
});
process.on('disconnect', () => {
  void ready.then((f) => f.close()).finally(() => process.exit(0));
});
