/**
 * The One-Euro filter (Casiez, Roussel and Vogel, CHI 2012) over landmark coordinates: smooths
 * hard when a point is still (no shimmer of the placement) and follows fast when it moves (no lag
 * of a mouth opening). Causal, so it runs as frames are tracked.
 */
export interface OneEuroOptions {
  /** Cut-off frequency at rest, Hz. */
  minCutoffHz: number;
  /** How much the cut-off rises with speed (per unit/s). */
  beta: number;
  /** Cut-off of the speed estimate, Hz. */
  derivativeCutoffHz?: number;
}

const alpha = (cutoffHz: number, dtS: number): number => {
  const tau = 1 / (2 * Math.PI * cutoffHz);
  return 1 / (1 + tau / dtS);
};

/** Filters a vector of values (e.g. 136 landmark coordinates) sampled at a fixed rate. */
export class OneEuroFilter {
  readonly #o: Required<OneEuroOptions>;
  readonly #dtS: number;
  #x: Float64Array | undefined;
  #dx: Float64Array | undefined;

  constructor(rateHz: number, o: OneEuroOptions) {
    this.#o = { derivativeCutoffHz: 1, ...o };
    this.#dtS = 1 / rateHz;
  }

  /** Forget the past (after a cut in tracking). */
  reset(): void {
    this.#x = undefined;
    this.#dx = undefined;
  }

  next(values: ArrayLike<number>): Float64Array {
    const n = values.length;
    if (!this.#x || !this.#dx || this.#x.length !== n) {
      this.#x = Float64Array.from(values);
      this.#dx = new Float64Array(n);
      return Float64Array.from(this.#x);
    }
    const dt = this.#dtS;
    const ad = alpha(this.#o.derivativeCutoffHz, dt);
    for (let i = 0; i < n; i++) {
      const v = values[i]!;
      const prev = this.#x[i]!;
      const d = ad * ((v - prev) / dt) + (1 - ad) * this.#dx[i]!;
      this.#dx[i] = d;
      const a = alpha(this.#o.minCutoffHz + this.#o.beta * Math.abs(d), dt);
      this.#x[i] = a * v + (1 - a) * prev;
    }
    return Float64Array.from(this.#x);
  }
}
