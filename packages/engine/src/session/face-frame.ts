/**
 * A video frame's face state, made the same way whether the session renders it or sends it as an
 * animation frame to a viewer that draws the avatar itself: the speech's mouth half a frame ahead
 * of the player (mouth driver: at rest from the first frame without speech, an interrupt's too), the
 * animator's idle life and emphasis.
 */
import type { AnimationFrame, VideoPick } from '@mouthpiece/protocol';
import type { Animator } from '../animation/animator.js';
import type { FaceState } from '../face-state.js';
import type { MouthDriver } from './mouth-driver.js';
import type { SpeechPlayer } from './speech-player.js';

/** The state of the frame at `nowMs` (one call per frame: the driver and animator move on). */
export function faceState(
  player: SpeechPlayer,
  driver: MouthDriver,
  animator: Animator,
  nowMs: number,
): FaceState {
  const speech = player.mouthAt(driver.aheadSamples);
  const mouth = driver.frame(speech?.mouth);
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
