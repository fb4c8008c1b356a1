/** Client-library session states (docs/design.md §5.1). */
export const SessionState = {
  IDLE: 'IDLE',
  CREATING: 'CREATING',
  READY: 'READY',
  ENDED: 'ENDED',
  ERROR: 'ERROR',
} as const;
export type SessionState = (typeof SessionState)[keyof typeof SessionState];

/** Client-library WebRTC connection states (docs/design.md §5.1). */
export const ConnectionState = {
  DISCONNECTED: 'DISCONNECTED',
  CONNECTING: 'CONNECTING',
  CONNECTED: 'CONNECTED',
  FAILED: 'FAILED',
  CLOSED: 'CLOSED',
} as const;
export type ConnectionState = (typeof ConnectionState)[keyof typeof ConnectionState];

/** Client error codes (docs/design.md §5.2). */
export const ClientErrorCode = {
  INVALID_STATE: 'INVALID_STATE',
  API_REQUEST_FAILED: 'API_REQUEST_FAILED',
  RTC_CONNECTION_FAILED: 'RTC_CONNECTION_FAILED',
  INVALID_CONFIGURATION: 'INVALID_CONFIGURATION',
  SESSION_NOT_FOUND: 'SESSION_NOT_FOUND',
  UNAUTHORIZED: 'UNAUTHORIZED',
} as const;
export type ClientErrorCode = (typeof ClientErrorCode)[keyof typeof ClientErrorCode];

/** Server-side session status. */
export const SessionStatus = { ACTIVE: 'active', ENDED: 'ended' } as const;
export type SessionStatus = (typeof SessionStatus)[keyof typeof SessionStatus];

/** Why a session ended. */
export const EndReason = {
  ENDED_BY_CLIENT: 'ended_by_client',
  IDLE_TIMEOUT: 'idle_timeout',
  MAX_DURATION: 'max_duration',
  CREDENTIAL_REVOKED: 'credential_revoked',
  ENGINE_FAILED: 'engine_failed',
  SERVER_RESTART: 'server_restart',
  ADMIN: 'ended_by_admin',
  /** Cluster mode: the node holding it stopped heartbeating (docs/cluster.md). */
  NODE_FAILED: 'node_failed',
} as const;
export type EndReason = (typeof EndReason)[keyof typeof EndReason];
