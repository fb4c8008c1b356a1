/**
 * Notices when the media stops arriving (video packets; with client rendering, animation frames:
 * the counter is the caller's). The engine sends frames all the time (idle or speaking),
 * so video packets that stop for `STALL_MS` mean the engine or the network went away. The session
 * is then asked at once (a keep-alive) instead of at the next scheduled one: a session the server
 * ended because its engine process died (410 `engine_failed`) is reported within about two
 * seconds, not after the next keep-alive or ICE's own timeouts. While the video stays stalled and
 * the session lives (a network problem, which ICE handles), it asks again every `REPROBE_MS`.
 */
export const STALL_MS = 1500;
export const REPROBE_MS = 3000;
const POLL_MS = 500;

/** A count that rises while the media flows. */
export type MediaCounter = () => Promise<number> | number;

/** The video packets a peer connection has received. */
export function videoPackets(pc: Pick<RTCPeerConnection, 'getStats'>): MediaCounter {
  return async () => {
    const stats = await pc.getStats();
    let packets = 0;
    stats.forEach((s: { type?: string; kind?: string; packetsReceived?: number }) => {
      if (s.type === 'inbound-rtp' && s.kind === 'video') packets += s.packetsReceived ?? 0;
    });
    return packets;
  };
}

export class MediaWatchdog {
  #timer: ReturnType<typeof setInterval> | undefined;
  #packets = 0;
  #movedAt = 0;
  #probedAt = -Infinity;
  #polling = false;

  constructor(
    private readonly count: MediaCounter,
    private readonly onStall: () => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#movedAt = now();
    this.#timer = setInterval(() => void this.#poll(), POLL_MS);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      const packets = await this.count();
      if (this.#timer === undefined) return;
      const now = this.now();
      if (packets !== this.#packets) {
        this.#packets = packets;
        this.#movedAt = now;
        this.#probedAt = -Infinity;
        return;
      }
      // armed once media has flowed; then a stall asks now, and again while it lasts
      if (packets === 0 || now - this.#movedAt < STALL_MS || now - this.#probedAt < REPROBE_MS) return;
      this.#probedAt = now;
      this.onStall();
    } catch {
      // a closed peer connection: the owner stops this
    } finally {
      this.#polling = false;
    }
  }
}
