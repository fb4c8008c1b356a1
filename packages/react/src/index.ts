export { Avatar, type AvatarProps } from './avatar.js';
export {
  useAvatarSession,
  type AvatarSessionState,
  type UseAvatarSessionOptions,
} from './use-avatar-session.js';
export type { AvatarSessionError, SessionView } from './session-lifecycle.js';
