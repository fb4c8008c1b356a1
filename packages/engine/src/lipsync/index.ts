export {
  buildMouthTrack,
  BLEND_MS,
  LEAD_MS,
  MIN_CLOSURE_MS,
  SHORT_PAUSE_MS,
  type MouthTrack,
} from './mouth-track.js';
export { frameCenterSample } from './sample-frame.js';
export {
  analyzeAudioMouth,
  analyzeAudioMouthAsync,
  analyzeOpenness,
  type AudioMouthAnalysis,
} from './audio-mouth.js';
export { AUDIO_MODEL, predictFrames, type AudioModelWeights } from './audio-model.js';
export {
  alignTranscript,
  MISMATCH_COST,
  transcriptMouthTrack,
  type Alignment,
  type PhonemeEvent,
} from './align-transcript.js';
export { isMarker, isStressed, visemeOf } from './visemes.js';
export { DOMINANCE, MOUTH_SHAPES, mixMouth } from './mouth-shapes.js';
