// Placeholder until the engine process pool lands (issue 3): the control plane can select it,
// and selecting it fails with a clear message instead of a missing-module crash.
import type { EngineHost } from './types.js';

export interface EnginePoolOptions {
  /** Number of engine child processes (default: one per core). */
  processes?: number;
}

export function createEnginePool(_opts: EnginePoolOptions = {}): Promise<EngineHost> {
  return Promise.reject(new Error('The engine process pool is not built yet; set MOUTHPIECE_ENGINE=fake'));
}
