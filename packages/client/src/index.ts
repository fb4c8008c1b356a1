export {
  AvatarSession,
  type AvatarSessionCallbacks,
  type AvatarSessionConfig,
  type AvatarSessionEvents,
  type RenderFallbackReason,
  type RenderMode,
} from './avatar-session.js';
export { MouthpieceError, ViewOnlyError, errorForStatus } from './errors.js';
export type { SessionAccess } from './session-access.js';
export { ClientErrorCode as ErrorCode, ConnectionState, SessionState } from '@mouthpiece/protocol';
export { iceServersFor, type TurnConfig } from './turn.js';
export { DEFAULT_RETRY, backoffMs, retryConfig, shouldRetry, type RetryConfig } from './retry.js';
