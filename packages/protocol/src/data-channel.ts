/**
 * WebRTC data channel contract. Label `events`, ordered, reliable, JSON text messages with a
 * `type`; unknown types are ignored on both sides (the SDK side is described in docs/client.md).
 */
export const DATA_CHANNEL_LABEL = 'events';
/** The contract's version, sent in the server's `hello`. */
export const DATA_CHANNEL_PROTOCOL = 1;

export type ServerMessage =
  /** `speaking`: the turn playing when this viewer's channel opened (a viewer that reconnects mid-turn). */
  | { type: 'hello'; sessionId: string; protocol: number; speaking?: string }
  | { type: 'speakingStart'; turnId: string }
  | { type: 'speakingEnd'; turnId: string; interrupted: boolean }
  | { type: 'word'; turnId: string; text: string; startMs: number; endMs: number }
  | { type: 'sessionEnded'; reason: string }
  /** A newer viewer took over the session's media; this viewer's connection closes. */
  | { type: 'replaced' }
  /** A voice provider failed this turn; the session lives. */
  | { type: 'turnFailed'; turnId: string; reason: string }
  /**
   * Something the viewer should know about how it is served, sent once when the channel opens;
   * `code` is stable (NOTICE_CODE), `message` says what to do.
   */
  | { type: 'notice'; code: string; message: string };

/** The codes of `notice` messages. */
export const NOTICE_CODE = {
  /**
   * The viewer's offer asked to draw the avatar itself (no video m-line), but the server does not
   * let browsers draw this kind of avatar (MOUTHPIECE_CLIENT_RENDER): it gets audio only.
   */
  CLIENT_RENDER_UNAVAILABLE: 'client_render_unavailable',
} as const;

export type ClientMessage = { type: 'ready' };

/** Parses a data-channel message; unknown or malformed messages give undefined (and are ignored). */
export function parseServerMessage(raw: unknown): ServerMessage | undefined {
  const m = parseObject(raw);
  if (!m) return undefined;
  switch (m['type']) {
    case 'hello':
      return typeof m['sessionId'] === 'string' && typeof m['protocol'] === 'number'
        ? {
            type: 'hello',
            sessionId: m['sessionId'],
            protocol: m['protocol'],
            ...(typeof m['speaking'] === 'string' ? { speaking: m['speaking'] } : {}),
          }
        : undefined;
    case 'speakingStart':
      return typeof m['turnId'] === 'string' ? { type: 'speakingStart', turnId: m['turnId'] } : undefined;
    case 'speakingEnd':
      return typeof m['turnId'] === 'string'
        ? { type: 'speakingEnd', turnId: m['turnId'], interrupted: m['interrupted'] === true }
        : undefined;
    case 'word':
      return typeof m['turnId'] === 'string' &&
        typeof m['text'] === 'string' &&
        typeof m['startMs'] === 'number' &&
        typeof m['endMs'] === 'number'
        ? { type: 'word', turnId: m['turnId'], text: m['text'], startMs: m['startMs'], endMs: m['endMs'] }
        : undefined;
    case 'sessionEnded':
      return { type: 'sessionEnded', reason: typeof m['reason'] === 'string' ? m['reason'] : 'unknown' };
    case 'replaced':
      return { type: 'replaced' };
    case 'turnFailed':
      return typeof m['turnId'] === 'string'
        ? {
            type: 'turnFailed',
            turnId: m['turnId'],
            reason: typeof m['reason'] === 'string' ? m['reason'] : 'unknown',
          }
        : undefined;
    case 'notice':
      return typeof m['code'] === 'string' && typeof m['message'] === 'string'
        ? { type: 'notice', code: m['code'], message: m['message'] }
        : undefined;
    default:
      return undefined; // a type this version does not know (a newer server's): ignored
  }
}

export function parseClientMessage(raw: unknown): ClientMessage | undefined {
  const m = parseObject(raw);
  return m && m['type'] === 'ready' ? { type: 'ready' } : undefined;
}

function parseObject(raw: unknown): Record<string, unknown> | undefined {
  let v: unknown = raw;
  if (typeof raw === 'string') {
    try {
      v = JSON.parse(raw);
    } catch {
      return undefined;
    }
  }
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}
