/**
 * The sample a video frame shows: frame n covers [n, n+1)/fps of audio, and is evaluated at the
 * centre of that interval so the quantisation error stays within half a frame (notes §5).
 */
export function frameCenterSample(frameIndex: number, fps: number, sampleRateHz = 48_000): number {
  return Math.round(((frameIndex + 0.5) / fps) * sampleRateHz);
}
