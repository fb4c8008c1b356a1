/**
 * The units of the media clock, in one place. Audio runs at 48 kHz and moves in 10 ms chunks of
 * 480 samples, one chunk per scheduler tick; video frames last 1/fps and each shows the mouth at
 * the centre of the audio it covers. Everything in the engine that counts samples, ticks or frames
 * takes its numbers from here.
 */

/** Audio sample rate of everything the engine plays (speech, uploads, the WebRTC audio source). */
export const SAMPLE_RATE_HZ = 48_000;
/** One scheduler tick, and one audio chunk handed to libwebrtc. */
export const TICK_MS = 10;
/** Samples in one tick's audio chunk (libwebrtc's RTCAudioSource takes exactly 10 ms). */
export const CHUNK_SAMPLES = (SAMPLE_RATE_HZ * TICK_MS) / 1000;

/** Samples in a span of milliseconds (fractional; round where a whole sample is needed). */
export function msToSamples(ms: number): number {
  return (ms * SAMPLE_RATE_HZ) / 1000;
}

/** The duration of one video frame. */
export function frameIntervalMs(fps: number): number {
  return 1000 / fps;
}
