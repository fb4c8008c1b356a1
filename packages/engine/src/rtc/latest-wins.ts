/**
 * Latest-wins sending of the animation stream on one data channel (docs/design.md §13.3): a frame
 * is dropped, not queued, when the channel's buffer already holds HIGH_WATER_BYTES or more (the
 * link is behind: a frame queued now would arrive stale, after the audio it belongs to, and hold
 * the next one back). Control messages are never dropped. Reading `bufferedAmount` is a call to
 * libwebrtc's network thread, so it is read only when the buffered bytes could have reached the
 * mark: the last reading plus every byte sent since bounds them from above.
 */
import { ANIMATION_FRAME_BYTES, ANIMATION_PICK_BYTES } from '@mouthpiece/protocol';

/** Two video avatar frames waiting already: the next one is dropped. */
export const HIGH_WATER_BYTES = 2 * (ANIMATION_FRAME_BYTES + ANIMATION_PICK_BYTES);

/** What of a data channel this needs (libwebrtc's RTCDataChannel, or a test's). */
export interface SendChannel {
  send(data: string | Uint8Array): void;
  readonly bufferedAmount: number;
}

export class LatestWins {
  readonly #channel: SendChannel;
  readonly #highWater: number;
  /** At least the bytes buffered now: the last reading plus what was sent since. */
  #bound = 0;
  /** Frames dropped so far. */
  dropped = 0;

  constructor(channel: SendChannel, highWaterBytes = HIGH_WATER_BYTES) {
    this.#channel = channel;
    this.#highWater = highWaterBytes;
  }

  /** A control message: always sent (throws if the channel closed under it). */
  text(data: string): void {
    this.#channel.send(data);
    this.#bound += data.length * 3; // (UTF-8: at most 3 bytes a UTF-16 unit)
  }

  /** An animation frame: sent, or dropped (false) when the channel is behind. */
  frame(data: Uint8Array): boolean {
    if (this.#bound >= this.#highWater) {
      this.#bound = this.#channel.bufferedAmount;
      if (this.#bound >= this.#highWater) {
        this.dropped++;
        return false;
      }
    }
    this.#channel.send(data);
    this.#bound += data.byteLength;
    return true;
  }
}
