/**
 * Request/response over a child process's IPC channel: ids, a pending map rejected when the
 * process goes away, per-request time-outs, and events pushed by the child.
 */
import type { ChildProcess } from 'node:child_process';
import { EngineError, type EngineEvent } from './types.js';
import type { FromEngine, ToEngine } from './protocol.js';

export class EngineChannel {
  readonly #child: ChildProcess;
  readonly #pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
  >();
  #seq = 0;
  #closed = false;
  onEvent: (e: EngineEvent) => void = () => undefined;
  onReady: () => void = () => undefined;

  constructor(child: ChildProcess) {
    this.#child = child;
    child.on('message', (m: FromEngine) => this.#receive(m));
    child.once('exit', () => this.close(new EngineError('engine_unavailable', 'The engine process exited')));
  }

  request<T>(method: string, params: unknown[], timeoutMs = 15_000): Promise<T> {
    if (this.#closed || !this.#child.connected) {
      return Promise.reject(new EngineError('engine_unavailable', 'The engine process is not running'));
    }
    const id = ++this.#seq;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(
          new EngineError('engine_unavailable', `The engine did not answer ${method} within ${timeoutMs} ms`),
        );
      }, timeoutMs);
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.send({ kind: 'req', id, method, params });
    });
  }

  send(message: ToEngine): void {
    if (this.#closed || !this.#child.connected) return;
    try {
      this.#child.send(message);
    } catch {
      // the channel closed; the exit handler rejects what is pending
    }
  }

  close(reason: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const p of this.#pending.values()) {
      clearTimeout(p.timer);
      p.reject(reason);
    }
    this.#pending.clear();
  }

  #receive(m: FromEngine): void {
    switch (m.kind) {
      case 'ready':
        this.onReady();
        break;
      case 'event':
        this.onEvent(m.event);
        break;
      case 'res': {
        const p = this.#pending.get(m.id);
        if (!p) return;
        this.#pending.delete(m.id);
        clearTimeout(p.timer);
        if (m.ok) p.resolve(m.result);
        else p.reject(new EngineError(m.error.code, m.error.message));
        break;
      }
    }
  }
}
