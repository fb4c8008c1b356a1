/** How the engine process pool (pool.ts) is set up. */
import type { RenderKind } from '../avatar/manifest.js';
import type { CandidatePolicy } from '../rtc/candidate-filter.js';
import type { PortRange } from '../rtc/wrtc-media.js';
import type { SpeechConfig } from '../speech/voice-book.js';

export interface EnginePoolOptions {
  /** Number of engine child processes (default: one per core). */
  processes?: number;
  videoWidth?: number;
  videoHeight?: number;
  fps?: number;
  /** Extra avatar pack folders (the built-in packs are always loaded). */
  avatarsDirs?: string[];
  /** How long speech waits for the viewer's `ready` before playing anyway. */
  readyTimeoutMs?: number;
  /** Without an events channel, playback starts this long after ICE connects. */
  noChannelStartMs?: number;
  /** Which ICE candidates viewers may hand the engine (default: the safe deny list, no TCP). */
  ice?: CandidatePolicy;
  /** The ports the engine's viewer peers bind, e.g. { min: 50000, max: 50999 } (default: any). */
  portRange?: PortRange;
  logger?: {
    info(o: object, m: string): void;
    warn(o: object, m: string): void;
    error(o: object, m: string): void;
  };
  pingIntervalMs?: number;
  /** A restarted engine that stays up this long resets its restart back-off (default 10 s). */
  healthyAfterMs?: number;
  /** Voice providers and the voices file's voices (default: espeak only). */
  speech?: SpeechConfig;
  /** Extra Node flags for the engine processes (e.g. `--cpu-prof`); the server's own flags otherwise. */
  execArgv?: string[];
  /** Kinds a viewer without video may draw itself (default all; else audio + a notice: design.md §13.7). */
  clientRenderKinds?: readonly RenderKind[];
}
