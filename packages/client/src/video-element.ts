/**
 * The avatar's <video> element and when its first frame shows: creating it as the client contract asks (docs/design.md §5.2)
 * (autoplay, playsinline, 100 %), playing with sound and falling back to muted when autoplay is
 * blocked, and spotting the first decoded frame.
 */
export function styleVideo(video: HTMLVideoElement): HTMLVideoElement {
  video.autoplay = true;
  video.playsInline = true;
  video.setAttribute('playsinline', '');
  video.style.width = '100%';
  video.style.height = '100%';
  return video;
}

/** Plays with sound; if the browser blocks that, plays muted and calls `onBlocked`. */
export function playWithFallback(video: HTMLMediaElement, onBlocked: () => void): void {
  video.muted = false;
  video.play().catch(() => {
    video.muted = true;
    void video.play().catch(() => undefined);
    onBlocked();
  });
}

/**
 * Calls `onFirstFrame` once, at the first frame of this connection: from the video element's
 * frame callback when one is attached, else from the receiver's `framesDecoded`. Returns the
 * function that stops watching (the connection was replaced or closed).
 */
export function watchFirstFrame(
  pc: Pick<RTCPeerConnection, 'getStats'>,
  video: () => HTMLVideoElement | undefined,
  onFirstFrame: (width: number, height: number) => void,
): () => void {
  let done = false;
  const ready = (width: number, height: number): void => {
    if (done) return;
    stop();
    onFirstFrame(width, height);
  };
  const poll = setInterval(() => {
    const v = video();
    if (v && 'requestVideoFrameCallback' in v && v.videoWidth > 0) {
      clearInterval(poll);
      v.requestVideoFrameCallback(() => ready(v.videoWidth, v.videoHeight));
      return;
    }
    void pc
      .getStats()
      .then((stats) =>
        stats.forEach(
          (s: {
            type: string;
            kind?: string;
            framesDecoded?: number;
            frameWidth?: number;
            frameHeight?: number;
          }) => {
            if (s.type === 'inbound-rtp' && s.kind === 'video' && (s.framesDecoded ?? 0) > 0)
              ready(s.frameWidth ?? 0, s.frameHeight ?? 0);
          },
        ),
      )
      .catch(() => undefined); // a closed peer connection: its owner stops this
  }, 50);
  function stop(): void {
    done = true;
    clearInterval(poll);
  }
  return stop;
}
