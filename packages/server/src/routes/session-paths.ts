/**
 * The calls a session token makes (`/v1/avatar-session/{sessionId}/{call}`): one list from which
 * the routes take their paths (session-control.ts, speech.ts, whep.ts, avatar-pack.ts,
 * session-events.ts) and by
 * which a raw URL is recognised before routing (CORS in app.ts; the cluster's fast path in
 * cluster/fast-path.ts, which takes POST, PATCH and DELETE: a GET, such as the avatar pack's or the event stream, is
 * forwarded by the session scope's first hook).
 */
export const SESSION_CALLS = [
  'init-client',
  'say-text',
  'say-audio',
  'interrupt',
  'keep-alive',
  'end',
  'whep',
  'avatar',
  'events',
  'audio',
] as const;
export type SessionCall = (typeof SESSION_CALLS)[number];

/**
 * The route path of a session call; `rest` follows it (`/:viewerId` for WHEP resources, `/:file`
 * for a pack's files).
 */
export function sessionCallPath(call: SessionCall, rest = ''): string {
  return `/v1/avatar-session/:sessionId/${call}${rest}`;
}

const SESSION_CALL_URL = new RegExp(`^/v1/avatar-session/([^/?]+)/(${SESSION_CALLS.join('|')})(?:[/?]|$)`);

/**
 * The session id segment and the call of a request URL (query string and a further segment
 * allowed), or undefined for any other URL. The id is not checked here (SESSION_ID_RE is).
 */
export function parseSessionCall(url: string): { sessionId: string; call: SessionCall } | undefined {
  const m = SESSION_CALL_URL.exec(url);
  if (!m) return undefined;
  return { sessionId: m[1]!, call: m[2] as SessionCall };
}
