/**
 * How much synthesized speech a session holds that playback has not yet consumed, with the
 * high-water mark its synthesis waits on (the shape of a flow-controlled data channel's
 * `bufferedAmount` and `bufferedamountlow`). Producers `add` a piece when it becomes playable and
 * the consumer `release`s it when it has been played out (or dropped: interrupt, end); whoever
 * waits is told when the amount falls below the mark.
 */
export class Lookahead {
  readonly highWater: number;
  #buffered = 0;
  readonly #onLow = new Set<() => void>();

  constructor(highWater: number) {
    this.highWater = highWater;
  }

  /** Pieces ready and not yet consumed. */
  get buffered(): number {
    return this.#buffered;
  }

  add(n = 1): void {
    this.#buffered += n;
  }

  release(n = 1): void {
    if (n <= 0) return;
    this.#buffered = Math.max(0, this.#buffered - n);
    if (this.#buffered < this.highWater) for (const l of [...this.#onLow]) l();
  }

  /** Called whenever a release leaves the amount below the high-water mark; returns the unsubscribe. */
  onLow(listener: () => void): () => void {
    this.#onLow.add(listener);
    return () => this.#onLow.delete(listener);
  }
}
