// Placeholder until the engine process pool lands (issue 3): the control plane can select it,
// and selecting it fails with a clear message instead of a missing-module crash.
import type { EngineHost } from './types.js';

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
}

export function createEnginePool(_opts: EnginePoolOptions = {}): Promise<EngineHost> {
  return Promise.reject(new Error('The engine process pool is not built yet; set MOUTHPIECE_ENGINE=fake'));
}
