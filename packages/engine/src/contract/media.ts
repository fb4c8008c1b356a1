/**
 * Where a session's media goes: 10 ms audio chunks and rendered video frames. The real sinks feed
 * libwebrtc's sources (rtc/wrtc-media.ts); null sinks drop everything (testing/null-media.ts).
 * A session built without a video sink renders nothing (a client that draws the face itself).
 */
export interface AudioSink {
  /** One 10 ms chunk of mono 16-bit PCM at 48 kHz (CHUNK_SAMPLES long). */
  write(samples: Int16Array): void;
}

export interface VideoSink {
  readonly width: number;
  readonly height: number;
  /** One frame as I420 (width × height × 3/2 bytes). */
  writeI420(frame: Uint8Array): void;
  /** One frame as RGBA (width × height × 4 bytes); the sink converts it. */
  writeRgba(frame: Uint8ClampedArray): void;
  /**
   * One frame that differs from the frame last written by writeRgba or this only inside `region`
   * (even pixel boundaries): the region's RGBA (region.width × region.height × 4 bytes). The sink
   * converts only that and sends the whole frame.
   */
  writeRgbaRegion(region: FrameRegion, rgba: Uint8ClampedArray): void;
  /** One frame equal to the frame last written: sent again, nothing converted (a refresh: session/session-frames.ts holds unchanged frames back). */
  repeat(): void;
}

/** A rectangle of a frame in pixels. */
export interface FrameRegion {
  x: number;
  y: number;
  width: number;
  height: number;
}
