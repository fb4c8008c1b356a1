/**
 * The base of every internal error class (the shape of jose's `JOSEError`): a subclass states its
 * kind once, as `static code`, and each instance carries it as `code`, so a caller tells errors
 * apart by class (`instanceof`) or by `code`, never by message text. `name` is the class's own
 * name unless the class sets one. A class whose instances carry one of several finer codes
 * (`EngineError`'s `not_found` | `invalid` | …) overrides the instance's `code` with it; its static
 * `code` still names the family.
 *
 *   class StorageBusy extends StorageError { static override code = 'ERR_STORAGE_BUSY'; }
 *   err instanceof StorageBusy; err.code === StorageBusy.code; // 'ERR_STORAGE_BUSY'
 *
 * Not for the errors of the public contract (the SDK's and the backend client's `MouthpieceError`,
 * whose `code` is the server's or the contract's) nor for `@mouthpiece/draw`, which imports
 * nothing of ours. Wire codes (HTTP bodies, data-channel messages) live in errors.ts.
 */
export class CodedError extends Error {
  /** The kind of failure, on the class; its instances' `code`. */
  static code = 'ERR_MOUTHPIECE';
  readonly code: string = (this.constructor as typeof CodedError).code;

  constructor(message?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
