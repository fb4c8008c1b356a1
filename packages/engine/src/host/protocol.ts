/** Messages between the control plane and an engine process (over IPC, advanced serialization). */
import type { AvatarPack } from '../avatar/catalog.js';
import type { RenderKind } from '../avatar/manifest.js';
import type { CandidatePolicy } from '../rtc/candidate-filter.js';
import type { PortRange } from '../rtc/wrtc-media.js';
import type { SpeechConfig } from '../speech/voice-book.js';
import type { RpcRequest, RpcResponse } from '../ipc/rpc.js';
import type { EngineEvent, EngineHost, EngineMediaStats } from '../contract/types.js';

export interface EngineProcessOptions {
  videoWidth: number;
  videoHeight: number;
  fps: number;
  /**
   * The avatar packs sessions may choose, as the pool read them (host/catalog.ts); the pool sends
   * them again (`avatars`) whenever it re-reads its catalog. The engine never reads pack folders
   * itself: a session's start loads only its own pack's files, off the media tick.
   */
  avatars: AvatarPack[];
  readyTimeoutMs: number;
  noChannelStartMs: number;
  /** Which ICE candidates viewers may hand the engine. */
  ice: CandidatePolicy;
  /** The UDP/TCP ports viewer peers bind (libwebrtc's port allocator); absent: any the OS gives. */
  portRange?: PortRange;
  /** Voice providers, their keys and the voices file's voices. */
  speech: SpeechConfig;
  /** The avatar kinds a viewer without video may draw itself (MOUTHPIECE_CLIENT_RENDER). */
  clientRenderKinds: RenderKind[];
}

/** The EngineHost methods an engine process answers for one of its sessions. */
export type SessionMethod =
  | 'createSession'
  | 'sayText'
  | 'sayAudio'
  | 'openAudioTurn'
  | 'writeAudioTurn'
  | 'endAudioTurn'
  | 'interrupt'
  | 'connectViewer'
  | 'addIceCandidates'
  | 'disconnectViewer'
  | 'closeSession';

/**
 * Every request an engine process answers: EngineHost's session methods (so the pool and the
 * engine cannot disagree on a name or a parameter), and its health ping.
 */
export type EngineMethods = Pick<EngineHost, SessionMethod> & {
  ping(): EngineMediaStats;
};

export type ToEngine =
  | { kind: 'init'; options: EngineProcessOptions }
  | { kind: 'avatars'; avatars: AvatarPack[] }
  | RpcRequest<EngineMethods>
  | { kind: 'shutdown' };

/** A log line of an engine process, written by the control plane's logger with the process's pid. */
export interface EngineLogLine {
  kind: 'log';
  level: 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  msg: string;
}

export type FromEngine =
  { kind: 'ready'; pid: number } | RpcResponse | { kind: 'event'; event: EngineEvent } | EngineLogLine;
