/**
 * Frames of a head swaying with a period of `period` frames, for the video-texture graph and walk
 * tests (video/jump-graph.ts, render/base-walk.ts): the thumbnail's grey and the landmarks follow
 * the sway, so frames at the same phase (and direction) match and others do not.
 */
import type { GraphFrame } from '../video/jump-graph.js';
import { THUMB_PX } from '../video/pixels.js';

export function swayFrames(source: readonly number[], period = 40, amplitude = 30): GraphFrame[] {
  return source.map((s) => {
    const sway = amplitude * Math.sin((2 * Math.PI * s) / period);
    return {
      source: s,
      thumb: new Uint8Array(THUMB_PX * THUMB_PX).fill(Math.round(120 + sway)),
      landmarks: Array.from({ length: 68 }, (_, i): [number, number] => [100 + i + sway / 3, 200 + i]),
    };
  });
}
