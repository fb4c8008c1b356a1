/**
 * Typed request/response over any message port: an engine child process's IPC channel, or a
 * worker thread's port. One method map (name → function type) types both ends: the caller's
 * `call('name', params)` and the callee's handler object, so a missing or misspelt method, or a
 * wrong parameter, is a compile error. The caller side keeps ids and a pending map, times requests
 * out, and rejects what is pending when the port closes.
 */

// A method map's functions take any parameters (contravariance would reject the concrete ones).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type MethodMap = { [method: string]: (...params: any[]) => unknown };

export type Method<M extends MethodMap> = keyof M & string;

export type RpcRequest<M extends MethodMap> = {
  [K in Method<M>]: { kind: 'req'; id: number; method: K; params: Parameters<M[K]> };
}[Method<M>];

export type RpcResponse =
  | { kind: 'res'; id: number; ok: true; result: unknown }
  | { kind: 'res'; id: number; ok: false; error: { code: string; message: string } };

/** What a callee implements: every method of the map, synchronous or not. */
export type RpcHandlers<M extends MethodMap> = {
  [K in Method<M>]: (
    ...params: Parameters<M[K]>
  ) => Awaited<ReturnType<M[K]>> | Promise<Awaited<ReturnType<M[K]>>>;
};

/** Values moved instead of copied (worker threads' transfer list); ignored by child-process IPC. */
export type Transfer = ArrayBuffer[];

export interface RpcClientOptions {
  /** Sends a request; throws or returns false when the port is closed. */
  post(request: RpcRequest<MethodMap>, transfer: Transfer): boolean | void;
  /** Turns an error answer (or a time-out / closed port, code `unavailable`) into the Error to reject with. */
  error(code: string, message: string): Error;
  defaultTimeoutMs?: number;
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout | undefined;
}

export class RpcClient<M extends MethodMap> {
  readonly #opts: RpcClientOptions;
  readonly #pending = new Map<number, Pending>();
  #seq = 0;
  #closed: Error | undefined;

  constructor(opts: RpcClientOptions) {
    this.#opts = opts;
  }

  /** Requests in flight. */
  get pending(): number {
    return this.#pending.size;
  }

  call<K extends Method<M>>(
    method: K,
    params: Parameters<M[K]>,
    opts: { timeoutMs?: number; transfer?: Transfer } = {},
  ): Promise<Awaited<ReturnType<M[K]>>> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = ++this.#seq;
    const timeoutMs = opts.timeoutMs ?? this.#opts.defaultTimeoutMs;
    return new Promise((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.#pending.delete(id);
              reject(this.#opts.error('unavailable', `no answer to ${method} within ${timeoutMs} ms`));
            }, timeoutMs);
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      let sent: boolean | void = false;
      try {
        sent = this.#opts.post({ kind: 'req', id, method, params }, opts.transfer ?? []);
      } catch {
        sent = false;
      }
      if (sent === false)
        this.#settle(id)?.reject(this.#opts.error('unavailable', `could not send ${method}`));
    });
  }

  /** Feeds an answer from the port. */
  receive(res: RpcResponse): void {
    const p = this.#settle(res.id);
    if (!p) return;
    if (res.ok) p.resolve(res.result);
    else p.reject(this.#opts.error(res.error.code, res.error.message));
  }

  /** Rejects everything pending with reason, and every later call; idempotent. */
  close(reason: Error): void {
    if (this.#closed) return;
    this.#closed = reason;
    for (const p of this.#pending.values()) {
      clearTimeout(p.timer);
      p.reject(reason);
    }
    this.#pending.clear();
  }

  #settle(id: number): Pending | undefined {
    const p = this.#pending.get(id);
    if (!p) return undefined;
    this.#pending.delete(id);
    clearTimeout(p.timer);
    return p;
  }
}

/**
 * Runs one request against handlers and answers it (never throws). `codeOf` names an error's
 * code on the wire (default: its string `code` property, else `internal`); `transferOf` picks the
 * buffers of a result to move rather than copy.
 */
export async function serveRpc<M extends MethodMap>(
  handlers: RpcHandlers<M>,
  req: RpcRequest<M>,
  reply: (res: RpcResponse, transfer: Transfer) => void,
  opts: { codeOf?: (err: unknown) => string; transferOf?: (result: unknown) => Transfer } = {},
): Promise<void> {
  try {
    const fn = (handlers as unknown as Record<string, ((...a: unknown[]) => unknown) | undefined>)[
      req.method
    ];
    if (typeof fn !== 'function')
      throw Object.assign(new Error(`unknown method ${req.method}`), { code: 'invalid_request' });
    // called on `handlers`, so an object's methods serve as they are (process/engine-process.ts)
    const result = (await fn.apply(handlers, req.params as unknown[])) ?? null;
    reply({ kind: 'res', id: req.id, ok: true, result }, opts.transferOf?.(result) ?? []);
  } catch (err) {
    const code = opts.codeOf?.(err) ?? defaultCode(err);
    reply(
      {
        kind: 'res',
        id: req.id,
        ok: false,
        error: { code, message: err instanceof Error ? err.message : String(err) },
      },
      [],
    );
  }
}

function defaultCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'internal';
}
