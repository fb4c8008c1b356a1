// The `@mouthpiece/engine/host` entry: the EngineHost seam (contract/types.ts) and the engine process
// pool that implements it, with the pool's options. The control plane drives the media plane only
// through this; its other engine entries are `/jobs` (jobs.ts) and `/config` (config.ts).
// Nothing reachable from here may load a native module (wrtc, canvas) or face-api into the server
// process (packages/server/src/engine-entries.test.ts checks it).
export * from '../contract/types.js';
export { createEnginePool, engineMainPath, type EnginePoolOptions } from './pool.js';
export { engineCatalog } from './catalog.js';
export { DEFAULT_ICE_DENY, type CandidatePolicy } from '../rtc/candidate-filter.js';
export type { PortRange } from '../rtc/wrtc-media.js';
export { RenderKind } from '../avatar/manifest.js';
