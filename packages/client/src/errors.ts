/** Client errors: the spec's six codes, with the HTTP status and server code in `details`. */
import { ClientErrorCode } from '@mouthpiece/protocol';

export class MouthpieceError extends Error {
  readonly code: ClientErrorCode;
  readonly details: { status?: number; code?: string; [k: string]: unknown } | undefined;

  constructor(code: ClientErrorCode, message: string, details?: MouthpieceError['details']) {
    super(message);
    this.name = 'MouthpieceError';
    this.code = code;
    this.details = details;
  }

  toJSON(): { code: ClientErrorCode; message: string; details?: MouthpieceError['details'] } {
    return { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) };
  }
}

/**
 * 401/403 → UNAUTHORIZED, 404/410 → SESSION_NOT_FOUND, anything else → API_REQUEST_FAILED; a
 * 410's `reason` (why the session ended) goes into `details` and the message.
 */
export function errorForStatus(
  status: number,
  message: string,
  serverCode?: string,
  reason?: string,
): MouthpieceError {
  const details = { status, ...(serverCode ? { code: serverCode } : {}), ...(reason ? { reason } : {}) };
  if (reason) message = `${message} (${reason})`;
  if (status === 401 || status === 403)
    return new MouthpieceError(ClientErrorCode.UNAUTHORIZED, message, details);
  if (status === 404 || status === 410)
    return new MouthpieceError(ClientErrorCode.SESSION_NOT_FOUND, message, details);
  return new MouthpieceError(ClientErrorCode.API_REQUEST_FAILED, message, details);
}

/** A failure as the SDK reports it: a MouthpieceError as it is, anything else API_REQUEST_FAILED. */
export function asMouthpieceError(err: unknown): MouthpieceError {
  return err instanceof MouthpieceError
    ? err
    : new MouthpieceError(
        ClientErrorCode.API_REQUEST_FAILED,
        err instanceof Error ? err.message : String(err),
      );
}

/**
 * What a view-only page (`initSession({ sessionId, viewerToken })`) may not do: speak, interrupt
 * or end. Thrown locally, before any request; the server would answer 403 to the viewer token.
 * `code` UNAUTHORIZED (as that 403 maps), `details.code` 'VIEW_ONLY'.
 */
export class ViewOnlyError extends MouthpieceError {
  constructor(call: string) {
    super(
      ClientErrorCode.UNAUTHORIZED,
      `view-only session: ${call} needs the session token, which stays on your backend; ` +
        'this page was opened with a viewerToken, so it can watch the avatar and keep the session alive only',
      { code: 'VIEW_ONLY' },
    );
    this.name = 'ViewOnlyError';
  }
}
