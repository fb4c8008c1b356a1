/**
 * The one error family of the storage ports (modelled on jose's `JOSEError` subclasses): an
 * adapter (memory, SQLite, Redis) throws a `StorageError` subclass for a failure of the store
 * itself, with the driver's error as `cause`. Expected outcomes (a duplicate id, a session over
 * its credential's limit) are results, never errors (ports.ts). Callers tell the kinds apart by
 * class or by the static `code`, never by message text; the HTTP error handler (errors.ts) maps
 * every `StorageError` to 503 STORAGE_UNAVAILABLE. The class shape is protocol's CodedError.
 */
import { CodedError } from '@mouthpiece/protocol';

export class StorageError extends CodedError {
  static override code = 'ERR_STORAGE';
}

/**
 * The store failed: disk full, read-only, I/O, a corrupt file, Redis unreachable. Worth retrying
 * later; nothing was changed by the failed call.
 */
export class StorageUnavailable extends StorageError {
  static override code = 'ERR_STORAGE_UNAVAILABLE';
}

/**
 * Another connection (a `sqlite3` shell, a backup, the CLI) held the store's lock for longer than
 * the call may wait (retrying.ts); nothing was changed.
 */
export class StorageBusy extends StorageError {
  static override code = 'ERR_STORAGE_BUSY';

  constructor(waitedMs: number, options?: { cause?: unknown }) {
    super(`storage is locked by another connection (waited ${waitedMs} ms)`, options);
  }
}

/** `err` as a StorageError: itself when it is one, else a StorageUnavailable caused by it. */
export function asStorageError(err: unknown, what: string): StorageError {
  if (err instanceof StorageError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new StorageUnavailable(`${what}: ${detail}`, { cause: err });
}
