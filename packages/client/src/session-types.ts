/** The configuration and events of AvatarSession (spec §6), and how server messages become events. */
import {
  parseServerMessage,
  type ClientErrorCode,
  type ConnectionState,
  type SessionState,
  type TypedEmitter,
} from '@mouthpiece/protocol';
import type { LogLevel } from './logger.js';
import type { RetryConfig } from './retry.js';

export interface AvatarSessionConfig extends Partial<RetryConfig> {
  baseUrl: string;
  logLevel?: LogLevel;
  iceTransportPolicy?: RTCIceTransportPolicy;
  retry?: Partial<RetryConfig>;
  /** Frontend-only pattern, for demos: a session credential in the page. Never in production. */
  credential?: string;
  /**
   * Where speakingStart/speakingEnd come from: the server's data channel (`auto`, falling back to
   * the received audio when the channel does not open within 3 s), or always the audio (`audio`).
   */
  speakingDetection?: 'auto' | 'audio';
}

export interface AvatarSessionEvents {
  stateChange: SessionState;
  connectionChange: ConnectionState;
  error: { code: ClientErrorCode; message: string; details?: unknown };
  speakingStart: { turnId: string };
  speakingEnd: { turnId: string; interrupted: boolean };
  word: { turnId: string; text: string; startMs: number; endMs: number };
  videoReady: { width: number; height: number };
  autoplayBlocked: Record<string, never>;
  [k: string]: unknown;
}

/** Turns one `events` channel message into session events; `ended` for `sessionEnded`. */
export function dispatchServerMessage(
  raw: string,
  events: TypedEmitter<AvatarSessionEvents>,
  ended: (reason: string) => void,
): void {
  const m = parseServerMessage(raw);
  if (!m) return;
  switch (m.type) {
    case 'speakingStart':
      events.emit('speakingStart', { turnId: m.turnId });
      break;
    case 'speakingEnd':
      events.emit('speakingEnd', { turnId: m.turnId, interrupted: m.interrupted });
      break;
    case 'word':
      events.emit('word', { turnId: m.turnId, text: m.text, startMs: m.startMs, endMs: m.endMs });
      break;
    case 'sessionEnded':
      ended(m.reason);
      break;
    case 'hello':
      break;
  }
}
