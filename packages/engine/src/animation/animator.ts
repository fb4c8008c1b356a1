/**
 * Idle life and emphasis: blinks every 2–6 s (≈150 ms, sometimes double), breathing, slow head
 * motion from smooth noise, gaze shifts; more motion and brow raises on stressed syllables while
 * speaking. Deterministic for a seed; small, slow movements keep the video cheap to encode.
 */
import type { FaceMotion } from '../face-state.js';
import { seededRandom } from './seeded-random.js';

export interface Animator {
  next(input: { tMs: number; speaking: boolean; emphasis: number }): FaceMotion;
}

/** Sum of incommensurate sines: smooth, non-repeating, deterministic. */
function wave(t: number, phase: number): number {
  return (
    0.5 * Math.sin(t * 0.00031 + phase) +
    0.3 * Math.sin(t * 0.00071 + phase * 2.1) +
    0.2 * Math.sin(t * 0.00123 + phase * 3.7)
  );
}

const BLINK_MS = 150;

export function createAnimator(opts: { seed: number }): Animator {
  const rnd = seededRandom(opts.seed);
  const phase = rnd() * 100;
  let nextBlinkAt = 800 + rnd() * 3000;
  let blinkStart = -1e9;
  let doubleAt = -1;
  let gazeX = 0;
  let gazeY = 0;
  let gazeTargetX = 0;
  let gazeTargetY = 0;
  let nextGazeAt = 2000;
  let emphasisLevel = 0;
  let lastT = 0;
  return {
    next({ tMs, speaking, emphasis }) {
      const dt = Math.max(0, Math.min(200, tMs - lastT));
      lastT = tMs;
      if (tMs >= nextBlinkAt) {
        blinkStart = tMs;
        doubleAt = rnd() < 0.15 ? tMs + BLINK_MS + 90 : -1;
        nextBlinkAt = tMs + 2000 + rnd() * 4000;
      }
      if (doubleAt > 0 && tMs >= doubleAt) {
        blinkStart = tMs;
        doubleAt = -1;
      }
      const bt = (tMs - blinkStart) / BLINK_MS;
      const blink = bt >= 0 && bt <= 1 ? Math.sin(Math.PI * bt) : 0;
      if (tMs >= nextGazeAt) {
        gazeTargetX = speaking ? (rnd() - 0.5) * 0.4 : (rnd() - 0.5) * 0.9;
        gazeTargetY = (rnd() - 0.5) * 0.4;
        nextGazeAt = tMs + 1500 + rnd() * 3500;
      }
      const follow = 1 - Math.exp(-dt / 90);
      gazeX += (gazeTargetX - gazeX) * follow;
      gazeY += (gazeTargetY - gazeY) * follow;
      emphasisLevel += ((speaking ? emphasis : 0) - emphasisLevel) * (1 - Math.exp(-dt / 120));
      const amp = speaking ? 1.6 : 1;
      return {
        blink,
        headX: wave(tMs, phase) * 3 * amp,
        headY: wave(tMs, phase + 17) * 2 * amp - emphasisLevel * 2.5,
        tilt: wave(tMs, phase + 41) * 0.025 * amp,
        breath: 0.5 + 0.5 * Math.sin((tMs / 4200) * Math.PI * 2 + phase),
        brow: Math.min(1, emphasisLevel * 0.9 + (blink > 0.5 ? 0.05 : 0)),
        gazeX,
        gazeY,
      };
    },
  };
}
