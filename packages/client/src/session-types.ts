/** The types of AvatarSession: its configuration and its events (the logic lives in session-config.ts and server-messages.ts). */
import type { ClientErrorCode, ConnectionState, EventCallbacks, SessionState } from '@mouthpiece/protocol';
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
  /**
   * End the session when the page goes away (pagehide), so a closed tab does not hold a session
   * until its idle timeout. Default true. Set false when the session belongs to something that
   * outlives the page (a page opened on a backend's session that should survive a reload).
   */
  endOnPageHide?: boolean;
  /**
   * Who draws the avatar: the server, as video (`video`, the default), or this page, on a canvas,
   * from the server's animation stream (`client`: the server sends audio and a few dozen bytes per
   * frame; docs/client.md "Client rendering"). Where the page cannot draw the avatar, the session
   * runs as video and says why in `renderFallback`.
   */
  render?: RenderMode;
}

/** Who draws the avatar (AvatarSessionConfig.render). */
export type RenderMode = 'video' | 'client';

/**
 * Why `render: 'client'` runs as video after all (the `renderFallback` event); 'context-lost': the
 * canvas's context was lost (a GPU reset) and not given back within 3 s of the page being shown.
 */
export type RenderFallbackReason =
  'no-webgl' | 'unsupported-kind' | 'pack-failed' | 'server' | 'context-lost';

/**
 * The events of an AvatarSession and their payloads (docs/client.md, "States and events"). A closed
 * map, with no index signature: `session.on('stateChnage', …)` does not compile.
 */
export interface AvatarSessionEvents {
  stateChange: SessionState;
  connectionChange: ConnectionState;
  error: { code: ClientErrorCode; message: string; details?: unknown };
  speakingStart: { turnId: string };
  speakingEnd: { turnId: string; interrupted: boolean };
  /** After a reconnect, the audio of a turn that was speaking when the connection was lost resumes mid-turn. */
  speakingResumed: { turnId: string };
  /** The connection was lost and the SDK is trying again (attempt counts from 1 since the loss). */
  reconnecting: { attempt: number };
  word: { turnId: string; text: string; startMs: number; endMs: number };
  videoReady: { width: number; height: number };
  autoplayBlocked: Record<string, never>;
  /** `render: 'client'` could not draw here; the session runs as video from now on. */
  renderFallback: { reason: RenderFallbackReason; message: string };
}

/** The listener of each AvatarSession event, by name (LiveKit's `RoomEventCallbacks` shape). */
export type AvatarSessionCallbacks = EventCallbacks<AvatarSessionEvents>;
