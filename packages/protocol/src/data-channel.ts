/**
 * WebRTC data channel contract. Label `events`, ordered, reliable, JSON text messages with a
 * `type`; unknown types are ignored on both sides (the SDK side is described in docs/client.md).
 * A viewer that draws the avatar itself may open a second channel, `frames` (FRAMES_CHANNEL_INIT):
 * the engine then sends the animation stream (animation.ts) there instead of on `events`.
 */
import { DEFAULT_STREAM_TIMING, type StreamTiming } from './animation.js';

export const DATA_CHANNEL_LABEL = 'events';
/**
 * The contract's version, sent in the server's `hello`. The rule: a new message type, or a new
 * optional field of a message, is ignored by an older reader and needs no new version (hello's
 * timing fields came so); a message whose meaning or required fields change does.
 */
export const DATA_CHANNEL_PROTOCOL = 1;

/**
 * The animation stream's own channel: latest wins, so unordered and never retransmitted (a frame
 * that is late is stale; the next one replaces it), and the control channel's messages never queue
 * behind frames. Binary animation frames only. A viewer without it gets the frames on `events`.
 */
export const FRAMES_CHANNEL_LABEL = 'frames';
export const FRAMES_CHANNEL_INIT = { ordered: false, maxRetransmits: 0 } as const;

export type ServerMessage =
  /**
   * `speaking`: the turn playing when this viewer's channel opened (a viewer that reconnects
   * mid-turn). The timing fields (StreamTiming: how the animation stream is stamped and this
   * viewer's audio packetised) are absent from an older server's hello.
   */
  | ({ type: 'hello'; sessionId: string; protocol: number; speaking?: string } & Partial<StreamTiming>)
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
            ...positive(m, 'stampRateHz'),
            ...positive(m, 'frameMs'),
            ...positive(m, 'audioPacketMs'),
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

/** `{ [key]: value }` when the message's field is a positive finite number, else nothing. */
function positive<K extends keyof StreamTiming>(m: Record<string, unknown>, key: K): Partial<StreamTiming> {
  const v = m[key];
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? { [key]: v } : {};
}

/** The timing a `hello` announces, each field the protocol's default where it is absent. */
export function streamTiming(hello: Partial<StreamTiming>): StreamTiming {
  return {
    stampRateHz: hello.stampRateHz ?? DEFAULT_STREAM_TIMING.stampRateHz,
    frameMs: hello.frameMs ?? DEFAULT_STREAM_TIMING.frameMs,
    audioPacketMs: hello.audioPacketMs ?? DEFAULT_STREAM_TIMING.audioPacketMs,
  };
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
