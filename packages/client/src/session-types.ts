/** The configuration and events of AvatarSession, and how server messages become events. */
import {
  ClientErrorCode,
  type ConnectionState,
  type EventCallbacks,
  type InitClientResponse,
  type ServerMessage,
  type SessionState,
  type TypedEmitter,
} from '@mouthpiece/protocol';
import { MouthpieceError } from './errors.js';
import type { Logger, LogLevel } from './logger.js';
import { iceServersFor } from './turn.js';
import type { WhepTransportOptions } from './whep-transport.js';
import type { SpeakingTracker } from './speaking-tracker.js';
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

/** Throws INVALID_CONFIGURATION for a config the SDK cannot start with. */
export function checkConfig(config: AvatarSessionConfig): void {
  if (!config || typeof config.baseUrl !== 'string' || !/^https?:\/\//.test(config.baseUrl))
    throw new MouthpieceError(
      ClientErrorCode.INVALID_CONFIGURATION,
      'baseUrl is required (an absolute http(s) URL)',
    );
  if (config.render !== undefined && config.render !== 'video' && config.render !== 'client')
    throw new MouthpieceError(ClientErrorCode.INVALID_CONFIGURATION, "render is 'video' or 'client'");
}

/** Turns one `events` channel message into session events. */
export function dispatchServerMessage(
  m: ServerMessage,
  events: TypedEmitter<AvatarSessionEvents>,
  speaking: SpeakingTracker,
  on: { ended(reason: string): void; replaced(): void; notice(code: string, message: string): void },
): void {
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
    case 'hello':
      break;
  }
}

/** The create request body of `createSession`'s options. */
export function createBody(o: { avatarId: string; voiceId?: string; voiceSpeed?: number }): object {
  return {
    visualConfig: { avatarId: o.avatarId },
    ...(o.voiceId !== undefined || o.voiceSpeed !== undefined
      ? { voiceConfig: { id: o.voiceId, speed: o.voiceSpeed } }
      : {}),
  };
}

/** The options of each new WHEP transport of a session (init-client's answer and the config). */
export function transportOptions(
  init: InitClientResponse,
  config: AvatarSessionConfig,
  render: RenderMode,
  video: () => HTMLVideoElement | undefined,
  log: Logger,
): WhepTransportOptions {
  return {
    whepUrl: init.whepUrl,
    iceServers: iceServersFor(init.turn, init.iceServers),
    iceTransportPolicy: config.iceTransportPolicy ?? 'all',
    speakingDetection: config.speakingDetection ?? 'auto',
    render,
    video,
    log,
  };
}

/** say-audio's multipart form: the file under `audio`, with `turnId` and `duration`. */
export function audioForm(audioFile: Blob, turnId: string, duration: number): FormData {
  const form = new FormData();
  form.append('turnId', turnId);
  form.append('duration', String(duration));
  form.append('audio', audioFile, (audioFile as File).name ?? 'audio.mp3');
  return form;
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
