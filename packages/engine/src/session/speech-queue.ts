/**
 * The speech queue of one session (docs/design.md §4.5, §4.6): turns play in the order their first chunk
 * arrived; a non-final turn holds the turns behind it; a turn with no chunk for `autoFinalizeMs` is
 * finalized as it stands; a chunk for a final turn is refused; interrupt clears everything and
 * remembers the cleared turnIds so late chunks of a barged-in stream are discarded, not spoken.
 *
 * Used by the real engine session and by the test fake, so both answer the control plane alike.
 * It synthesizes and plays nothing and calls its owner back from no call: each call returns what
 * the owner carries out (`addText`: synthesize the chunk or keep it as a transcript, finish the
 * turn; `interrupt`: the turnIds to drop), and its answer decides the HTTP status. The one thing
 * no call returns, a turn finalized by silence, reaches the owner from the queue's own timer
 * (`QueueOwner`). The owner calls `startHead()` whenever a turn may have become playable, and
 * `finishPlaying()` when the turn is done.
 */
import {
  MAX_QUEUED_CHARACTERS,
  MAX_QUEUED_TURNS,
  TURN_AUTO_FINALIZE_MS,
  type Clock,
} from '@mouthpiece/protocol';
import type { QueueAnswer, TextChunk } from '../contract/types.js';

/** The one Clock (protocol's clock.ts); `now()` is monotonic: streamed audio turns time arrivals with it. */
export type QueueClock = Clock;

/** Timers on the process's event loop (unref'd: they never keep a process alive). */
export const systemQueueClock: QueueClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export type TurnKind = 'text' | 'audio';

/** A turn handed to the player. For audio turns, `chunks` is the transcript (possibly empty). */
export interface PlayableTurn<A> {
  turnId: string;
  kind: TurnKind;
  chunks: readonly string[];
  audio: A | undefined;
}

/** Every answer but `queued`: the call changed nothing. */
type Refusal = Exclude<QueueAnswer, 'queued'>;

/** What the owner does with a text chunk: its answer, and when queued, what to carry out. */
export type TextDecision =
  | { answer: Refusal }
  | {
      answer: 'queued';
      /** `speak`: synthesize it now (a text turn); `transcript`: an audio turn's text, kept for its start. */
      as: 'speak' | 'transcript';
      /** The turn takes no more text: its synthesis finishes, and the head may now play. */
      final: boolean;
    };

/** The owner's side of the one thing that happens without a call. */
export interface QueueOwner {
  /** No chunk for `autoFinalizeMs`: the turn is final as it stands (finish it; the head may play). */
  finalizedBySilence(turnId: string): void;
}

export interface SpeechQueueOptions {
  clock?: QueueClock;
  autoFinalizeMs?: number;
  maxTurns?: number;
  maxCharacters?: number;
}

interface Turn<A> {
  turnId: string;
  kind: TurnKind;
  chunks: string[];
  characters: number;
  final: boolean;
  playing: boolean;
  audio: A | undefined;
  timer: unknown;
}

/** How many ended/cleared turnIds are remembered (for 409 and `discarded` answers). */
const REMEMBERED_TURNS = 1000;

export class SpeechQueue<A = unknown> {
  readonly #clock: QueueClock;
  readonly #autoFinalizeMs: number;
  readonly #maxTurns: number;
  readonly #maxCharacters: number;
  readonly #turns = new Map<string, Turn<A>>(); // insertion order = play order
  readonly #discarded = new BoundedSet(REMEMBERED_TURNS);
  readonly #finished = new BoundedSet(REMEMBERED_TURNS);
  readonly #owner: QueueOwner;
  #characters = 0;
  #closed = false;

  constructor(owner: QueueOwner, opts: SpeechQueueOptions = {}) {
    this.#owner = owner;
    this.#clock = opts.clock ?? systemQueueClock;
    this.#autoFinalizeMs = opts.autoFinalizeMs ?? TURN_AUTO_FINALIZE_MS;
    this.#maxTurns = opts.maxTurns ?? MAX_QUEUED_TURNS;
    this.#maxCharacters = opts.maxCharacters ?? MAX_QUEUED_CHARACTERS;
  }

  addText(chunk: TextChunk): TextDecision {
    const known = this.#answerForKnown(chunk.turnId);
    if (known) return { answer: known };
    let turn = this.#turns.get(chunk.turnId);
    if (turn?.kind === 'audio') {
      if (turn.playing) return { answer: 'turn_playing' };
      if (this.#characters + chunk.text.length > this.#maxCharacters) return { answer: 'queue_full' };
      turn.chunks.push(chunk.text);
      this.#addCharacters(turn, chunk.text.length);
      return { answer: 'queued', as: 'transcript', final: false };
    }
    if (turn?.final) return { answer: 'turn_final' };
    if (!turn && this.#turns.size >= this.#maxTurns) return { answer: 'queue_full' };
    if (this.#characters + chunk.text.length > this.#maxCharacters) return { answer: 'queue_full' };
    turn ??= this.#newTurn(chunk.turnId, 'text');
    turn.chunks.push(chunk.text);
    this.#addCharacters(turn, chunk.text.length);
    if (chunk.isFinal) this.#finalize(turn);
    else this.#armAutoFinalize(turn);
    return { answer: 'queued', as: 'speak', final: chunk.isFinal };
  }

  /**
   * Adds a decoded clip: when queued, the turn is final. A text turn not yet playing becomes an
   * audio turn (its text = transcript): the owner drops whatever it synthesized for it.
   */
  addAudio(turnId: string, audio: A): QueueAnswer {
    const known = this.#answerForKnown(turnId);
    if (known) return known;
    let turn = this.#turns.get(turnId);
    if (turn?.playing) return 'turn_playing';
    if (turn?.kind === 'audio') return 'turn_final';
    if (!turn && this.#turns.size >= this.#maxTurns) return 'queue_full';
    turn ??= this.#newTurn(turnId, 'audio');
    turn.kind = 'audio';
    turn.audio = audio;
    this.#finalize(turn);
    return 'queued';
  }

  /** Takes the head turn for playing when it is final and nothing plays; else undefined. */
  startHead(): PlayableTurn<A> | undefined {
    const head = this.#head();
    if (!head || head.playing || !head.final) return undefined;
    head.playing = true;
    return { turnId: head.turnId, kind: head.kind, chunks: head.chunks, audio: head.audio };
  }

  /** The turn is over (played out or failed): it leaves the queue; the next head may start. */
  finishPlaying(turnId: string): void {
    const turn = this.#turns.get(turnId);
    if (!turn) return;
    this.#remove(turn);
    this.#finished.add(turnId);
  }

  /** Clears every turn (the playing one too); returns the cleared turnIds in play order. */
  interrupt(): string[] {
    const ids = [...this.#turns.keys()];
    for (const turn of this.#turns.values()) this.#clock.clearTimeout(turn.timer);
    this.#turns.clear();
    this.#characters = 0;
    for (const id of ids) this.#discarded.add(id);
    return ids;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const turn of this.#turns.values()) this.#clock.clearTimeout(turn.timer);
    this.#turns.clear();
  }

  #answerForKnown(turnId: string): Refusal | undefined {
    if (this.#turns.has(turnId)) return undefined;
    if (this.#discarded.has(turnId)) return 'discarded';
    if (this.#finished.has(turnId)) return 'turn_final';
    return undefined;
  }

  #newTurn(turnId: string, kind: TurnKind): Turn<A> {
    const turn: Turn<A> = {
      turnId,
      kind,
      chunks: [],
      characters: 0,
      final: false,
      playing: false,
      audio: undefined,
      timer: undefined,
    };
    this.#turns.set(turnId, turn);
    return turn;
  }

  #addCharacters(turn: Turn<A>, n: number): void {
    turn.characters += n;
    this.#characters += n;
  }

  #remove(turn: Turn<A>): void {
    this.#clock.clearTimeout(turn.timer);
    this.#turns.delete(turn.turnId);
    this.#characters -= turn.characters;
  }

  #armAutoFinalize(turn: Turn<A>): void {
    this.#clock.clearTimeout(turn.timer);
    turn.timer = this.#clock.setTimeout(() => {
      turn.timer = undefined;
      if (this.#turns.get(turn.turnId) !== turn || turn.final) return;
      this.#finalize(turn);
      this.#owner.finalizedBySilence(turn.turnId);
    }, this.#autoFinalizeMs);
  }

  #finalize(turn: Turn<A>): void {
    this.#clock.clearTimeout(turn.timer);
    turn.timer = undefined;
    turn.final = true;
  }

  #head(): Turn<A> | undefined {
    return this.#turns.values().next().value;
  }
}

/** A set that forgets its oldest members beyond a size. */
class BoundedSet {
  readonly #max: number;
  readonly #items = new Set<string>();
  constructor(max: number) {
    this.#max = max;
  }
  add(v: string): void {
    this.#items.delete(v);
    this.#items.add(v);
    if (this.#items.size > this.#max) {
      const oldest = this.#items.values().next().value;
      if (oldest !== undefined) this.#items.delete(oldest);
    }
  }
  has(v: string): boolean {
    return this.#items.has(v);
  }
}
