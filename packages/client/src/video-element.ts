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
 * frame callback when one is attached (asked for as soon as the element is there, so it fires at
 * the first frame shown, not at the one after it), else from the receiver's `framesDecoded`.
 * Returns the function that stops watching (the connection was replaced or closed).
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
  const check = (): void => {
    const v = video();
    if (v && 'requestVideoFrameCallback' in v) {
      clearInterval(poll);
      v.requestVideoFrameCallback((_now, frame) =>
        ready(frame.width || v.videoWidth, frame.height || v.videoHeight),
      );
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
  };
  const poll = setInterval(check, 50);
  check();
  function stop(): void {
    done = true;
    clearInterval(poll);
  }
  return stop;
}

/** The page's <video> of a session shown as video: made on attach, given each connection's stream. */
export class PageVideo {
  #video: HTMLVideoElement | undefined;

  constructor(private readonly autoplayBlocked: () => void) {}

  get element(): HTMLVideoElement | undefined {
    return this.#video;
  }

  /** Into the container (the same element again, if there was one), playing `stream` if there is one. */
  attach(container: HTMLElement, stream: MediaStream | undefined): HTMLVideoElement {
    const video = styleVideo(this.#video ?? document.createElement('video'));
    if (stream) video.srcObject = stream;
    container.appendChild(video);
    this.#video = video;
    playWithFallback(video, this.autoplayBlocked);
    return video;
  }

  /** A new connection's stream. */
  play(stream: MediaStream): void {
    if (this.#video) this.#video.srcObject = stream;
  }

  unmute(): void {
    if (!this.#video) return;
    this.#video.muted = false;
    void this.#video.play().catch(() => undefined);
  }
}
