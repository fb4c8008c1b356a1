export { buildMouthTrack, frameCenterSample, LEAD_MS, type MouthTrack } from './mouth-track.js';
export { analyzeAudioMouth, analyzeOpenness } from './audio-mouth.js';
export { visemeOf } from './visemes.js';
export { MOUTH_SHAPES } from './mouth-shapes.js';
