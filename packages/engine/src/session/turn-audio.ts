/**
 * The audio of one turn as a stream that owns its pieces: a text turn gets a piece per synthesized
 * sentence (text-turn.ts), an audio turn one decoded clip. Producers write through a `PieceWriter`
 * per slot (slots keep turn order; they may be filled out of order), append streamed audio, give a
 * piece its better mouth track later, and `end` or `fail` the turn. Nobody is called back: the
 * player pulls with `read(index)` and says `consumed(index)` when a piece has played out; each
 * piece that became playable counts in the session's `Lookahead` (speech/lookahead.ts) until it is
 * consumed or the turn is closed, so synthesis waits at the high-water mark. The player also
 * reports how far it has played and where a streaming piece ran dry (an underrun), which a
 * streamed audio turn (audio-stream-turn.ts) reads for its jitter buffer and its backpressure.
 */
import type { MouthTrack } from '../lipsync/mouth-track.js';
import type { Lookahead } from '../speech/lookahead.js';

export interface Word {
  text: string;
  startSample: number;
  endSample: number;
}

/** A piece as the player sees it (read-only; only its writer changes it). */
export interface PieceView {
  readonly pcm: Int16Array;
  readonly mouth: MouthTrack;
  readonly words: readonly Word[];
  /** Still streaming in: the player waits at its end instead of moving on. */
  readonly streaming: boolean;
}

/** What the player finds at a slot. */
export type PieceRead =
  | { kind: 'piece'; piece: PieceView }
  /** Not there yet (synthesis under way): play silence and read again next chunk. */
  | { kind: 'wait' }
  /** Past the last piece of an ended turn. */
  | { kind: 'end' }
  /** The turn failed before this piece could be made. */
  | { kind: 'failed'; error: Error };

/** A writer's access to its slot (closed turns read as empty and ignore writes). */
interface SlotAccess {
  get(): Piece | undefined;
  put(update: (piece: Piece | undefined) => Piece): void;
  setMouth(mouth: MouthTrack, words?: readonly Word[]): void;
}

interface Slot {
  piece: Piece | undefined;
  counted: boolean;
  consumed: boolean;
}

class Piece implements PieceView {
  pcm: Int16Array;
  mouth: MouthTrack;
  words: readonly Word[];
  streaming: boolean;
  constructor(pcm: Int16Array, mouth: MouthTrack, words: readonly Word[], streaming: boolean) {
    this.pcm = pcm;
    this.mouth = mouth;
    this.words = words;
    this.streaming = streaming;
  }
}

/** Why a turn failed, for `turnFailed` (a provider's reason, else `synthesis_failed`). */
export function failureReason(err: Error): string {
  const reason = (err as { reason?: unknown }).reason;
  return typeof reason === 'string' ? reason : 'synthesis_failed';
}

export class TurnAudio {
  readonly turnId: string;
  readonly #slots: Slot[] = [];
  readonly #lookahead: Lookahead | undefined;
  #ended = false;
  #failed: Error | undefined;
  #closed = false;
  readonly #done = new AbortController();
  #played = 0;
  #underruns = 0;
  #dryAt = -1;

  constructor(turnId: string, lookahead?: Lookahead) {
    this.turnId = turnId;
    this.#lookahead = lookahead;
  }

  /** Slots reserved so far (filled or not). */
  get slots(): number {
    return this.#slots.length;
  }

  // ---- producer side ----

  /** Reserves the next slot in turn order; its writer fills it (pieces may finish out of order). */
  reserve(): PieceWriter {
    const slot: Slot = { piece: undefined, counted: false, consumed: false };
    const index = this.#slots.push(slot) - 1;
    return new PieceWriter(index, {
      get: () => (this.#closed ? undefined : slot.piece),
      setMouth: (mouth, words) => this.setMouth(index, mouth, words),
      put: (update) => {
        if (this.#closed) return;
        const isNew = slot.piece === undefined;
        slot.piece = update(slot.piece);
        if (isNew && !slot.consumed) {
          slot.counted = true;
          this.#lookahead?.add();
        }
      },
    });
  }

  /** One whole piece in the next slot (an audio turn's clip). */
  append(pcm: Int16Array, mouth: MouthTrack, words: readonly Word[] = []): void {
    this.reserve().set(pcm, mouth, words);
  }

  /** A better mouth track (and words) for a piece already playable: the player shows it from then on. */
  setMouth(index: number, mouth: MouthTrack, words?: readonly Word[]): void {
    const piece = this.#closed ? undefined : this.#slots[index]?.piece;
    if (!piece) return;
    piece.mouth = mouth;
    if (words) piece.words = words;
  }

  /** No more slots will be reserved; the turn is over once the reserved ones have played. */
  end(): void {
    if (this.#ended || this.#closed) return;
    this.#ended = true;
  }

  fail(error: Error): void {
    if (this.#failed || this.#closed) return;
    this.#failed = error;
  }

  // ---- consumer side ----

  read(index: number): PieceRead {
    const piece = this.#slots[index]?.piece;
    if (piece) return { kind: 'piece', piece };
    if (this.#failed) return { kind: 'failed', error: this.#failed };
    if (this.#ended && index >= this.#slots.length) return { kind: 'end' };
    return { kind: 'wait' };
  }

  /** The piece at `index` has played out: it no longer counts as speech ahead. */
  consumed(index: number): void {
    const slot = this.#slots[index];
    if (!slot || slot.consumed) return;
    slot.consumed = true;
    if (slot.counted) {
      slot.counted = false;
      this.#lookahead?.release();
    }
  }

  /** The player has played this many samples of the turn so far. */
  played(samples: number): void {
    this.#played = samples;
  }

  /**
   * A streaming piece ran out before its end: the player plays silence. Counted once per place
   * in the turn where it happens (an underrun), however many chunks the wait lasts.
   */
  ranDry(): void {
    if (this.#dryAt === this.#played) return;
    this.#dryAt = this.#played;
    this.#underruns++;
  }

  /** Samples of the turn played so far. */
  get playedSamples(): number {
    return this.#played;
  }

  /** Times playback ran dry in a streaming piece (an underrun: silence until audio came). */
  get underruns(): number {
    return this.#underruns;
  }

  /** The turn is done with (played, interrupted, session closed): writers stop, nothing counts. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#done.abort();
    let counted = 0;
    for (const slot of this.#slots) {
      if (slot.counted) counted++;
      slot.counted = false;
    }
    this.#lookahead?.release(counted);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Aborted when the turn closes: work still done for it (a late reading, an alignment) is withdrawn. */
  get signal(): AbortSignal {
    return this.#done.signal;
  }
}

/**
 * Fills one slot of a turn: a whole piece (`set`), or audio as it streams in (`stream`, then
 * `finish`), and a better mouth track when one is worked out later (`setMouth`). After the turn
 * is closed every call is a no-op.
 */
export class PieceWriter {
  readonly index: number;
  readonly #slot: SlotAccess;
  #buf: Int16Array | undefined;
  #length = 0;

  /** Made by `TurnAudio.reserve()`, which alone reaches the slot. */
  constructor(index: number, slot: SlotAccess) {
    this.#slot = slot;
    this.index = index;
  }

  set(pcm: Int16Array, mouth: MouthTrack, words: readonly Word[] = []): void {
    this.#slot.put(() => new Piece(pcm, mouth, words, false));
  }

  /** Appends streamed audio; the piece plays as it grows, with `mouth` (kept from the first call). */
  stream(pcm: Int16Array, mouth: MouthTrack): void {
    if (this.#length + pcm.length > (this.#buf?.length ?? 0)) {
      const grown = new Int16Array(Math.max(2 * (this.#buf?.length ?? 0), this.#length + pcm.length, 48_000));
      if (this.#buf) grown.set(this.#buf.subarray(0, this.#length));
      this.#buf = grown;
    }
    this.#buf!.set(pcm, this.#length);
    this.#length += pcm.length;
    const now = this.#buf!.subarray(0, this.#length);
    this.#slot.put((p) => {
      if (!p) return new Piece(now, mouth, [], true);
      p.pcm = now;
      return p;
    });
  }

  /** What has streamed in so far (empty before the first audio). */
  get streamed(): Int16Array {
    return this.#buf?.subarray(0, this.#length) ?? new Int16Array(0);
  }

  /** The streamed piece is complete: the player moves on at its end. */
  finish(final?: { pcm?: Int16Array; mouth?: MouthTrack; words?: readonly Word[] }): void {
    if (!this.#slot.get()) return;
    this.#slot.put((p) => {
      const piece = p!;
      if (final?.pcm) piece.pcm = final.pcm;
      if (final?.mouth) piece.mouth = final.mouth;
      if (final?.words) piece.words = final.words;
      piece.streaming = false;
      return piece;
    });
    this.#buf = undefined;
  }

  /** The late mouth track (and words) of this piece. */
  setMouth(mouth: MouthTrack, words?: readonly Word[]): void {
    this.#slot.setMouth(mouth, words);
  }

  /** The piece as it stands (undefined before it has any audio, or once the turn is closed). */
  get piece(): PieceView | undefined {
    return this.#slot.get();
  }
}
