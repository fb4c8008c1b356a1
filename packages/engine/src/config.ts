// The `@mouthpiece/engine/config` entry: what the server reads at start to configure the engine —
// the voices file (parsed into the pool's SpeechConfig) and the probe that a local voice's model
// loads and speaks (in a child process: speech/local-probe.ts).
// Nothing reachable from here may load a native module into the process that imports it
// (packages/server/src/engine-entries.test.ts checks it).
export {
  parseVoicesFile,
  ELEVENLABS_DEFAULT_MODEL,
  OPENAI_DEFAULT_MODEL,
  DEFAULT_SPEECH_CONFIG,
  type SpeechConfig,
  type VoiceEntry,
} from './speech/voice-book.js';
export { probeLocalVoices, LocalVoiceUnusable, type LocalProbeResult } from './speech/local-probe.js';
