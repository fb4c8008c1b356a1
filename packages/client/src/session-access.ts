/**
 * What a page opens a backend's session with: the session token (full control) or the viewer
 * token of create's answer (view-only: it watches the avatar and keeps the session alive; the
 * backend speaks). docs/client.md "View-only pages".
 */
import { ClientErrorCode } from '@mouthpiece/protocol';
import { MouthpieceError } from './errors.js';

/** `initSession`'s first argument: `{ sessionId, token }` or `{ sessionId, viewerToken }`. */
export type SessionAccess = { sessionId: string; token: string } | { sessionId: string; viewerToken: string };

/** The session and the token the page sends as Bearer, and whether it is view-only. */
export interface SessionKey {
  sessionId: string;
  bearer: string;
  viewOnly: boolean;
}

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';

/**
 * The key of an initSession argument. A `token` wins over a `viewerToken` given beside it, so a
 * page handed create's whole answer keeps the control the contract gives it.
 */
export function sessionKey(s: SessionAccess | undefined): SessionKey {
  const o = (s ?? {}) as { sessionId?: unknown; token?: unknown; viewerToken?: unknown };
  if (nonEmpty(o.sessionId) && nonEmpty(o.token))
    return { sessionId: o.sessionId, bearer: o.token, viewOnly: false };
  if (nonEmpty(o.sessionId) && nonEmpty(o.viewerToken))
    return { sessionId: o.sessionId, bearer: o.viewerToken, viewOnly: true };
  throw new MouthpieceError(
    ClientErrorCode.INVALID_CONFIGURATION,
    'sessionId and token are required (or sessionId and viewerToken, for a page that only watches)',
  );
}
