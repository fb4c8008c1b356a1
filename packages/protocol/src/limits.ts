/** Shared constants and defaults (documented in the README's limits table). */
export const KEEP_ALIVE_INTERVAL_MS = 10_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_SESSION_DURATION_MS = 60 * 60 * 1000;
export const DEFAULT_ENDED_RETENTION_MS = 60 * 60 * 1000;
export const DEFAULT_MAX_TEXT_LENGTH = 5000;
export const DEFAULT_MAX_AUDIO_BYTES = 10 * 1024 * 1024;
export const MIN_AUDIO_DURATION_MS = 100;
/** Longest audio one say-audio upload may hold (checked from its headers before decoding). */
export const MAX_AUDIO_DURATION_MS = 5 * 60 * 1000;
export const TURN_AUTO_FINALIZE_MS = 15_000;
export const MAX_QUEUED_TURNS = 100;
export const MAX_QUEUED_CHARACTERS = 50_000;
export const DEFAULT_CREDENTIAL_RPS = 20;
export const DEFAULT_SESSION_RPS = 10;
export const DEFAULT_MAX_SESSIONS_PER_CREDENTIAL = 10;
export const MIN_VOICE_SPEED = 0.5;
export const MAX_VOICE_SPEED = 2.0;
export const RTC_CONNECTION_TIMEOUT_MS = 30_000;
