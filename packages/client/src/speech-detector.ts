/**
 * Speaking events from the received audio, for servers without the `events` data channel:
 * speech starts when the level stays above a threshold for 100 ms and ends after 400 ms below it.
 */
export interface SpeechDetector {
  stop(): void;
}

export function detectSpeech(
  track: MediaStreamTrack,
  on: { start(): void; end(): void },
  opts: { threshold?: number; startMs?: number; endMs?: number } = {},
): SpeechDetector {
  const threshold = opts.threshold ?? 0.02;
  const startMs = opts.startMs ?? 100;
  const endMs = opts.endMs ?? 400;
  const ctx = new AudioContext();
  const analyser = ctx.createAnalyser();
  analyser.fftSize = 1024;
  ctx.createMediaStreamSource(new MediaStream([track])).connect(analyser);
  void ctx.resume().catch(() => undefined);
  const buf = new Float32Array(analyser.fftSize);
  let speaking = false;
  let since = performance.now();
  const timer = setInterval(() => {
    analyser.getFloatTimeDomainData(buf);
    let sum = 0;
    for (const v of buf) sum += v * v;
    const loud = Math.sqrt(sum / buf.length) > threshold;
    const now = performance.now();
    if (loud === speaking) {
      since = now;
      return;
    }
    if (now - since >= (loud ? startMs : endMs)) {
      speaking = loud;
      since = now;
      if (speaking) on.start();
      else on.end();
    }
  }, 25);
  return {
    stop() {
      clearInterval(timer);
      void ctx.close().catch(() => undefined);
    },
  };
}

/**
 * The audio fallback of one connection: with `speakingDetection: 'audio'` it starts at once
 * (200 ms), otherwise only if the events channel has not opened after 3 s. `stop()` ends it.
 */
export class SpeechFallback {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #detector: SpeechDetector | undefined;
  #stopped = false;

  constructor(
    o: { stream: MediaStream; channel: Pick<RTCDataChannel, 'readyState'> },
    mode: 'auto' | 'audio',
    on: { start(): void; end(): void; started(): void },
  ) {
    const start = (): void => {
      const track = o.stream.getAudioTracks()[0];
      if (!track || this.#stopped || this.#detector) return;
      on.started();
      this.#detector = detectSpeech(track, on);
    };
    if (mode === 'audio') this.#timer = setTimeout(start, 200);
    else this.#timer = setTimeout(() => o.channel.readyState !== 'open' && start(), 3000);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#detector?.stop();
    this.#detector = undefined;
  }
}
