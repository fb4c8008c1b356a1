// Fakes of the engine's seams for tests (DESIGN: only test fakes run in-process).
export { FakeEngineHost, FAKE_AVATARS, FAKE_VOICES } from './fake-engine-host.js';
export type { FakeEngineHostOptions, FakeEngineCall } from './fake-engine-host.js';
export { ManualClock } from './manual-clock.js';
export { sniffAudio } from './sniff-audio.js';
