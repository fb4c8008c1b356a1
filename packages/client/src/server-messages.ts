/** How the server's `events` channel messages become session events, and the errors two of them carry. */
import { type ServerMessage, type TypedEmitter } from '@mouthpiece/protocol';
import type { AvatarSessionEvents } from './session-types.js';
import type { SpeakingTracker } from './speaking-tracker.js';

/**
 * Turns one `events` channel message into session events. With speakingDetection 'audio',
 * speaking comes from the received audio, so only the session's end and notices are read here.
 */
export function dispatchServerMessage(
  m: ServerMessage,
  o: {
    events: TypedEmitter<AvatarSessionEvents>;
    speaking: SpeakingTracker;
    speakingDetection: 'auto' | 'audio' | undefined;
  },
  on: { ended(reason: string): void; replaced(): void; notice(code: string, message: string): void },
): void {
  const { events, speaking } = o;
  if (o.speakingDetection === 'audio' && m.type !== 'sessionEnded' && m.type !== 'notice') return;
  switch (m.type) {
    case 'speakingStart':
      speaking.start(m.turnId);
      break;
    case 'speakingEnd':
      speaking.end(m.turnId, m.interrupted);
      break;
    case 'turnFailed':
      speaking.end(m.turnId, true); // its speakingEnd, if it had started and the server's was lost
      events.emit('error', turnFailedError(m.turnId, m.reason));
      break;
    case 'replaced':
      on.replaced();
      break;
    case 'word':
      events.emit('word', { turnId: m.turnId, text: m.text, startMs: m.startMs, endMs: m.endMs });
      break;
    case 'sessionEnded':
      on.ended(m.reason);
      break;
    case 'notice':
      on.notice(m.code, m.message);
      break;
    case 'hello': {
      const resumed = speaking.reconcile(m.speaking);
      if (resumed !== undefined) events.emit('speakingResumed', { turnId: resumed });
      break;
    }
  }
}

/** The `error` a page gets when another page (a newer viewer) took over its session. */
export const REPLACED_ERROR = {
  code: 'RTC_CONNECTION_FAILED',
  message:
    'Another page opened this session and now shows it; this page stopped (it neither reconnects nor ends the session)',
  details: { code: 'REPLACED' },
} as const satisfies AvatarSessionEvents['error'];

/** The `error` a page gets when a turn could not be spoken (its voice provider failed); the session lives. */
export function turnFailedError(turnId: string, reason: string): AvatarSessionEvents['error'] {
  return {
    code: 'API_REQUEST_FAILED',
    message: `Turn ${turnId} was not spoken: the voice provider failed (${reason}); the session continues`,
    details: { code: 'TURN_FAILED', turnId, reason },
  };
}
