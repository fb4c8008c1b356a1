/**
 * Serves synchronous stores (SQLite, memory) as the promise ports of `ports.ts`. A call the store
 * refuses because another connection holds its lock (a `sqlite3` shell, a backup, the CLI) is
 * retried on a timer until `waitMs` has passed, then fails with `StorageBusy`: the store's own
 * busy wait (which would block the event loop, and with it every request, keep-alive and timer of
 * the process) stays at zero. Any other failure of the store is thrown as `StorageUnavailable`
 * (errors.ts), its driver error as `cause`. `check()` reports a lock or a failing store for `/readyz`.
 */
import { asStorageError, StorageBusy, StorageUnavailable } from './errors.js';
import type { Async, Stores, SyncStores } from './ports.js';

export interface RetryOptions {
  /** True for the store's "locked, try again" errors. */
  isBusy(err: unknown): boolean;
  /** How long one call keeps retrying a locked store before it fails (default 2 s). */
  waitMs?: number;
  /** How long `check()` waits for the lock (default 250 ms). */
  checkWaitMs?: number;
}

const BACKOFF_MS = [2, 5, 10, 20, 40, 80, 100];
const WRITES = new Set(['insert', 'revoke', 'markEnded', 'endAllActive', 'purgeEndedBefore', 'add']);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function retryingStores(sync: SyncStores, o: RetryOptions): Stores {
  const waitMs = o.waitMs ?? 2000;
  /** The last failed write that was not a lock (disk full, read-only, I/O), until a write lands. */
  let writeFailure: { message: string; at: number } | undefined;
  /** Since when writes have been finding the store locked (reads go on under a write lock). */
  let lockedSince: number | undefined;
  let closed = false;

  async function run<R>(fn: () => R, limitMs: number, kind: 'read' | 'write' | 'probe'): Promise<R> {
    const start = Date.now();
    for (let attempt = 0; ; attempt++) {
      if (closed) throw new StorageUnavailable('storage is closed');
      try {
        const result = fn();
        if (kind !== 'read') lockedSince = undefined;
        if (kind === 'write') writeFailure = undefined;
        return result;
      } catch (err) {
        if (!o.isBusy(err)) {
          if (kind === 'write')
            writeFailure = { message: err instanceof Error ? err.message : String(err), at: Date.now() };
          throw asStorageError(err, 'storage failed');
        }
        if (kind !== 'read') lockedSince ??= start;
        const waited = Date.now() - start;
        if (waited >= limitMs) throw new StorageBusy(waited, { cause: err });
        await sleep(Math.min(BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)]!, limitMs - waited));
      }
    }
  }

  /** Every method of `target` as a retrying promise (looked up per call, so a test may replace one). */
  function wrap<T extends object>(target: T): Async<T> {
    return new Proxy(target, {
      get(t, prop) {
        const value: unknown = Reflect.get(t, prop, t);
        if (typeof value !== 'function') return value;
        const kind = typeof prop === 'string' && WRITES.has(prop) ? 'write' : 'read';
        return (...args: unknown[]) =>
          run(() => (value as (...a: unknown[]) => unknown).apply(t, args), waitMs, kind);
      },
    }) as unknown as Async<T>;
  }

  return {
    credentials: wrap(sync.credentials),
    sessions: wrap(sync.sessions),
    usage: wrap(sync.usage),
    async check() {
      try {
        await run(() => sync.probeWrite(), o.checkWaitMs ?? 250, 'probe');
      } catch (err) {
        if (err instanceof StorageBusy) {
          const s = Math.round((Date.now() - (lockedSince ?? Date.now())) / 1000);
          return `locked by another connection (writes waiting for ${s} s)`;
        }
        const cause = err instanceof Error && err.cause !== undefined ? err.cause : err;
        return `failing: ${cause instanceof Error ? cause.message : String(cause)}`;
      }
      if (writeFailure) return `failing: ${writeFailure.message}`;
      return 'ok';
    },
    close() {
      closed = true;
      sync.close();
      return Promise.resolve();
    },
  };
}
