/**
 * The seam between the control plane and the media plane. The control plane drives media only
 * through this interface; it never touches frames, samples or libwebrtc. Implementations:
 * the engine process pool (`createEnginePool`, real media in child processes) and
 * `FakeEngineHost` (`@mouthpiece/engine/testing`, in-memory, for control-plane tests).
 */
import type { AvatarInfo, IceServer, VoiceInfo } from '@mouthpiece/protocol';
import { CodedError } from '@mouthpiece/protocol';

export interface EngineSessionOptions {
  sessionId: string;
  avatarId: string;
  voiceId: string;
  /** Speech speed multiplier in [0.5, 2.0]. */
  voiceSpeed: number;
  /** A flat `#rrggbb` background replacing the avatar's (vector and sprite avatars only). */
  background?: string;
}

export interface TextChunk {
  turnId: string;
  text: string;
  isFinal: boolean;
}

/** What the speech queue answered; decides the HTTP status (docs/design.md §4.5). */
export type QueueAnswer = 'queued' | 'discarded' | 'turn_final' | 'turn_playing' | 'queue_full';

export interface AudioClip {
  turnId: string;
  /** The uploaded file's bytes (MP3 or WAV). */
  audio: Uint8Array;
  /** The `duration` form field, in seconds. */
  declaredDurationSec: number;
}

export type SayAudioAnswer =
  | { kind: 'queued'; decodedDurationSec: number }
  | { kind: 'invalid_audio'; reason: string }
  | { kind: 'discarded' }
  | { kind: 'turn_playing' }
  | { kind: 'turn_final' }
  | { kind: 'queue_full' };

/** A streamed audio turn (the audio WebSocket): its id and the PCM's rate (mono s16le). */
export interface AudioTurnStart {
  turnId: string;
  /** One of AUDIO_STREAM_SAMPLE_RATES. */
  sampleRateHz: number;
}

/**
 * What writing to a streamed audio turn did, and the session's unplayed streamed audio after it
 * (the caller stops reading its producer while that is over AUDIO_STREAM_MAX_BUFFERED_MS).
 * `too_long`: the turn passed AUDIO_STREAM_MAX_TURN_MS and the rest was dropped; `closed`: the
 * turn is not open (ended, silent for TURN_AUTO_FINALIZE_MS, interrupted, or never opened).
 */
export interface AudioTurnWriteAnswer {
  kind: 'written' | 'too_long' | 'closed';
  bufferedMs: number;
}

export interface ViewerOffer {
  /** 128-bit unguessable id chosen by the control plane; the WHEP resource path carries it. */
  viewerId: string;
  offerSdp: string;
  /** ICE servers the engine's peer may use (normally none: its host candidates are the relay's peer). */
  iceServers: IceServer[];
}

export interface ViewerAnswer {
  answerSdp: string;
}

export type EngineEvent =
  | { type: 'speakingStart'; sessionId: string; turnId: string }
  | { type: 'speakingEnd'; sessionId: string; turnId: string; interrupted: boolean }
  /** A word of a turn, `offsetMs` after the turn's start, where the voice gives timings. */
  | { type: 'word'; sessionId: string; turnId: string; text: string; offsetMs: number }
  | { type: 'viewerConnected'; sessionId: string; viewerId: string }
  | { type: 'viewerDisconnected'; sessionId: string; viewerId: string }
  /**
   * A voice provider failed a turn: it ended (speakingEnd if it had started); the session lives.
   * `reason` is a stable code, `detail` says what happened (the provider's status, never a key or text).
   */
  | { type: 'turnFailed'; sessionId: string; turnId: string; reason: string; detail: string }
  /** One request to a voice provider (for the metrics); `failure` is absent when it succeeded. */
  | { type: 'voiceRequest'; provider: string; failure?: string; firstByteMs?: number }
  /**
   * A streamed audio turn is over: played out, interrupted, or cleared before it started (after
   * its speakingEnd if it sounded). `underruns`: times playback ran dry waiting for its audio.
   */
  | {
      type: 'audioTurnEnded';
      sessionId: string;
      turnId: string;
      interrupted: boolean;
      playedMs: number;
      underruns: number;
    }
  /** The session's media failed (its engine process died, or its pipeline threw). */
  | { type: 'sessionFailed'; sessionId: string; message: string };

export interface EngineCatalog {
  avatars: AvatarInfo[];
  voices: VoiceInfo[];
  defaultVoiceId: string;
  /** A voice id not listed is tried with this provider (ElevenLabs, when configured). */
  unlistedVoiceProvider?: string;
}

/** Error codes an EngineHost may reject with (as `EngineError`). */
export type EngineErrorCode =
  | 'unknown_session'
  | 'unknown_viewer'
  | 'unsupported_offer'
  | 'invalid_request'
  | 'engine_unavailable'
  | 'internal';

export class EngineError extends CodedError {
  static override code = 'ERR_ENGINE';
  override readonly code: EngineErrorCode;
  constructor(code: EngineErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EngineError';
    this.code = code;
  }
}

export interface EngineStats {
  kind: string;
  processes: number;
  sessions: number;
  /** Media counters per engine process, as of its last health ping (cumulative since it started). */
  media?: EngineMediaStats[];
}

export interface EngineMediaStats {
  pid: number;
  sessions: number;
  framesSent: number;
  /** Frames not sent because nothing in them changed (session/session-frames.ts REFRESH_MS bounds how long). */
  framesHeld: number;
  /** Frames not sent because their tick was late (a CPU-starved engine). */
  framesSkipped: number;
  ticks: number;
  skippedTicks: number;
  /** The latest a media tick has run since the process started, in ms. */
  maxLateMs: number;
  /** Media ticks that ran STALL_MS (40 ms) or more late: the media thread was held (clock/media-scheduler.ts). */
  stalls: number;
  /** The latest a media tick has run since the previous ping, in ms. */
  recentMaxLateMs: number;
}

export interface EngineHost {
  /** Avatars and voices this engine can serve (avatars change only through refreshCatalog). */
  catalog(): EngineCatalog;
  /**
   * Reads the avatar packs again after one was added or removed while the service runs, and hands
   * them to every engine process, so the change is live everywhere at once.
   */
  refreshCatalog?(): EngineCatalog;
  createSession(opts: EngineSessionOptions): Promise<void>;
  sayText(sessionId: string, chunk: TextChunk): Promise<QueueAnswer>;
  sayAudio(sessionId: string, clip: AudioClip): Promise<SayAudioAnswer>;
  /**
   * Opens a streamed audio turn, queued with text turns in arrival order; it plays as its audio
   * streams in (writeAudioTurn) once its jitter buffer holds enough, until endAudioTurn.
   * `turn_final`/`turn_playing`/`discarded` mean the turnId is taken in this session.
   */
  openAudioTurn(sessionId: string, turn: AudioTurnStart): Promise<QueueAnswer>;
  /** Appends mono s16le PCM (any length) at the turn's rate. */
  writeAudioTurn(sessionId: string, turnId: string, pcm: Uint8Array): Promise<AudioTurnWriteAnswer>;
  /** No more audio for the turn: what arrived plays out. Idempotent; a closed turn is ignored. */
  endAudioTurn(sessionId: string, turnId: string): Promise<void>;
  /** Stops speech within one frame and clears the queue; resolves when done (also when idle). */
  interrupt(sessionId: string): Promise<void>;
  /** Answers a WHEP offer; a new viewer replaces the session's previous one. */
  connectViewer(sessionId: string, offer: ViewerOffer): Promise<ViewerAnswer>;
  /** Trickle ICE: an `application/trickle-ice-sdpfrag` body. */
  addIceCandidates(sessionId: string, viewerId: string, sdpFragment: string): Promise<void>;
  disconnectViewer(sessionId: string, viewerId: string): Promise<void>;
  /** Releases every resource of the session; idempotent; tells the viewer `sessionEnded`. */
  closeSession(sessionId: string, reason: string): Promise<void>;
  /** Subscribes to engine events; returns the unsubscribe function. */
  onEvent(listener: (event: EngineEvent) => void): () => void;
  stats(): EngineStats;
  /** Closes every session and engine process; idempotent. */
  close(): Promise<void>;
}
