/**
 * The control plane's end of an engine child process's IPC channel: typed requests (ipc/rpc.ts)
 * rejected when the process goes away, and the events and readiness the child pushes.
 */
import type { ChildProcess } from 'node:child_process';
import { EngineError, type EngineErrorCode, type EngineEvent } from '../contract/types.js';
import type { EngineLogLine, EngineMethods, FromEngine, ToEngine } from './protocol.js';
import { RpcClient, type Method } from '../ipc/rpc.js';

const DEFAULT_TIMEOUT_MS = 15_000;

export class EngineChannel {
  readonly #child: ChildProcess;
  readonly #rpc: RpcClient<EngineMethods>;
  onEvent: (e: EngineEvent) => void = () => undefined;
  onReady: () => void = () => undefined;
  onLog: (line: EngineLogLine) => void = () => undefined;

  constructor(child: ChildProcess) {
    this.#child = child;
    this.#rpc = new RpcClient<EngineMethods>({
      post: (req) => this.send(req as ToEngine),
      error: (code, message) =>
        new EngineError(code === 'unavailable' ? 'engine_unavailable' : (code as EngineErrorCode), message),
      defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
    });
    child.on('message', (m: FromEngine) => this.#receive(m));
    child.once('exit', () => this.close(new EngineError('engine_unavailable', 'The engine process exited')));
  }

  request<K extends Method<EngineMethods>>(
    method: K,
    params: Parameters<EngineMethods[K]>,
    timeoutMs?: number,
  ): Promise<Awaited<ReturnType<EngineMethods[K]>>> {
    return this.#rpc.call(method, params, timeoutMs === undefined ? {} : { timeoutMs });
  }

  /** Sends a message; false when the process is gone. */
  send(message: ToEngine): boolean {
    if (!this.#child.connected) return false;
    try {
      this.#child.send(message); // false only means a backlog: the message is still queued
      return true;
    } catch {
      return false; // the channel closed; the exit handler rejects what is pending
    }
  }

  close(reason: Error): void {
    this.#rpc.close(reason);
  }

  #receive(m: FromEngine): void {
    switch (m.kind) {
      case 'ready':
        this.onReady();
        break;
      case 'event':
        this.onEvent(m.event);
        break;
      case 'res':
        this.#rpc.receive(m);
        break;
      case 'log':
        this.onLog(m);
        break;
    }
  }
}
