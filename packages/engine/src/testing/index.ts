// Fakes of the engine's seams for tests (only test fakes run in-process: docs/design.md §2).
export { FakeEngineHost, FAKE_AVATARS, FAKE_VOICES } from './fake-engine-host.js';
export type { FakeEngineHostOptions, FakeEngineCall } from './fake-engine-host.js';
export { ManualClock } from './manual-clock.js';
export { sniffAudio } from './sniff-audio.js';
export { openAiStandin, elevenLabsStandin, standinSpeech } from './voice-standins.js';
export type { VoiceStandin, StandinFault, StandinRequest } from './voice-standins.js';
export { portraitFixture, portraitFixturePath, blankImage, PORTRAIT_FIXTURE } from './portrait-fixture.js';
// test footage (issue 19): the renderer and espeak load when a clip is first made, not here
export {
  makeTalkingClip,
  readClipTruth,
  resolveClipOptions,
  clipCacheDir,
  type TalkingClipOptions,
  type TalkingClip,
  type ResolvedClipOptions,
  type ClipTruth,
  type ClipFrameTruth,
  type ClipFaceTruth,
  type ClipFacePlacement,
} from './talking-clip.js';
export { probeMedia, decodeFrame, type MediaProbe, type ClipFormat } from './ffmpeg.js';
// a video avatar pack without a clip (Skia loads when one is written, not here)
export {
  writeSyntheticVideoPack,
  type SyntheticVideoPack,
  type SyntheticVideoPackOptions,
} from './synthetic-video-pack.js';
// tiny local neural voices (scripts/make-tiny-vits.py; sherpa-onnx loads them in child processes only)
export { tinyVoices, tokensOf, TINY_VOICE, type TinyVoices } from './tiny-voice.js';
// the shared real footage and clips made from it (rotated, other rates, HDR, …), cached
export {
  realClip,
  realClipPath,
  realClipVariant,
  REAL_CLIP_PATH,
  INPUT,
  type RealClipName,
} from './real-clip.js';
