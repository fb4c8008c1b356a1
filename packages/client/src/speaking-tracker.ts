/**
 * Keeps the promise that every `speakingStart` gets exactly one `speakingEnd`: remembers the turns
 * that started and have not ended, drops duplicate ends, and ends what is still open (as
 * interrupted) when the session ends, the connection drops or the page goes away.
 */
export class SpeakingTracker {
  readonly #open = new Set<string>();
  readonly #emit: {
    start(e: { turnId: string }): void;
    end(e: { turnId: string; interrupted: boolean }): void;
  };

  constructor(emit: {
    start(e: { turnId: string }): void;
    end(e: { turnId: string; interrupted: boolean }): void;
  }) {
    this.#emit = emit;
  }

  get speaking(): boolean {
    return this.#open.size > 0;
  }

  start(turnId: string): void {
    if (this.#open.has(turnId)) return;
    this.#open.add(turnId);
    this.#emit.start({ turnId });
  }

  end(turnId: string, interrupted: boolean): void {
    if (!this.#open.delete(turnId)) return; // never started, or already ended
    this.#emit.end({ turnId, interrupted });
  }

  /**
   * A reconnected viewer learnt which turn the server is playing (`hello.speaking`): open turns
   * that finished while the page was away end (`interrupted: false`: the page cannot tell whether
   * one was cut short); a turn that started meanwhile starts. Returns the turn that was open
   * before and still plays (its audio resumes mid-turn), if any.
   */
  reconcile(playing: string | undefined): string | undefined {
    for (const turnId of [...this.#open]) if (turnId !== playing && turnId !== '') this.end(turnId, false);
    if (playing === undefined) return undefined;
    if (this.#open.has(playing)) return playing;
    this.start(playing);
    return undefined;
  }

  /** Ends every open turn as interrupted. */
  interruptAll(): void {
    for (const turnId of [...this.#open]) this.end(turnId, true);
  }
}
