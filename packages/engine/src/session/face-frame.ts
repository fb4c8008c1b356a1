/**
 * A video frame's face state, made the same way whether the session renders it or sends it as an
 * animation frame to a viewer that draws the avatar itself: the speech's mouth sampled at the
 * centre of the audio the frame covers (half a frame ahead of the player), the animator's idle
 * life and emphasis. Without speech the mouth is at rest, from the very next frame after an
 * interrupt too (docs/design.md §13.3): the voice stops at once, and a mouth still closing for
 * three frames after it read as lag. A natural end needs no ease here: the mouth track itself
 * closes into the silence at a sentence's end.
 */
import type { AnimationFrame, VideoPick } from '@mouthpiece/protocol';
import type { Animator } from '../animation/animator.js';
import { frameIntervalMs, msToSamples } from '../clock/media-clock.js';
import { REST_MOUTH, type FaceState } from '../face-state.js';
import type { SpeechPlayer } from './speech-player.js';

/** How far ahead of the player's position a frame samples the mouth: half a frame. */
export function mouthAheadSamples(fps: number): number {
  return Math.round(msToSamples(frameIntervalMs(fps) / 2));
}

/** The state of the frame at `nowMs` (one call per frame: the animator moves on). */
export function faceState(
  player: SpeechPlayer,
  aheadSamples: number,
  animator: Animator,
  nowMs: number,
): FaceState {
  const speech = player.mouthAt(aheadSamples);
  const mouth = speech?.mouth ?? { ...REST_MOUTH };
  const motion = animator.next({
    tMs: nowMs,
    speaking: speech !== undefined,
    emphasis: speech?.emphasis ?? 0,
  });
  return {
    mouth,
    motion,
    speaking: speech !== undefined,
    ...(speech?.sound ? { sound: speech.sound } : {}),
  };
}

/** The state as the protocol's animation frame (its sound stays in the engine). */
export function toAnimationFrame(
  state: FaceState,
  sampleIndex: number,
  video: VideoPick | undefined,
): AnimationFrame {
  return {
    sampleIndex,
    speaking: state.speaking === true,
    mouth: state.mouth,
    motion: state.motion,
    ...(video ? { video } : {}),
  };
}
