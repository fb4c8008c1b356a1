/**
 * The speech queue of one session (docs/design.md §4.5, §4.6): turns play in the order their first chunk
 * arrived; a non-final turn holds the turns behind it; a turn with no chunk for `autoFinalizeMs` is
 * finalized as it stands; a chunk for a final turn is refused; interrupt clears everything and
 * remembers the cleared turnIds so late chunks of a barged-in stream are discarded, not spoken.
 *
 * Used by the real engine session and by the test fake, so both answer the control plane alike.
 * Its answer decides the HTTP status. It holds no audio playback itself: the owner calls
 * `startHead()` when it can play, and `finishPlaying()` when the turn is done.
 */
import {
  MAX_QUEUED_CHARACTERS,
  MAX_QUEUED_TURNS,
  TURN_AUTO_FINALIZE_MS,
  type Clock,
} from '@mouthpiece/protocol';
import type { QueueAnswer, TextChunk } from '../host/types.js';

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

export type QueueEvent =
  /** A text chunk was accepted for a text turn: synthesize it now. */
  | { type: 'chunk'; turnId: string; index: number; text: string }
  /** A turn became an audio turn (its text chunks, if any, are now only its transcript). */
  | { type: 'audio'; turnId: string }
  /** A transcript chunk was added to an audio turn. */
  | { type: 'transcript'; turnId: string; text: string }
  /** A turn became final (by isFinal, an audio clip, or auto-finalize): no more text will come. */
  | { type: 'final'; turnId: string }
  /** The head turn is playable (final, nothing playing): call `startHead()`. */
  | { type: 'ready' }
  /** Interrupt cleared these turns (the playing one included). */
  | { type: 'cleared'; turnIds: string[] };

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
  readonly #listeners = new Set<(e: QueueEvent) => void>();
  #characters = 0;
  #closed = false;

  constructor(opts: SpeechQueueOptions = {}) {
    this.#clock = opts.clock ?? systemQueueClock;
    this.#autoFinalizeMs = opts.autoFinalizeMs ?? TURN_AUTO_FINALIZE_MS;
    this.#maxTurns = opts.maxTurns ?? MAX_QUEUED_TURNS;
    this.#maxCharacters = opts.maxCharacters ?? MAX_QUEUED_CHARACTERS;
  }

  addText(chunk: TextChunk): QueueAnswer {
    const known = this.#answerForKnown(chunk.turnId);
    if (known) return known;
    let turn = this.#turns.get(chunk.turnId);
    if (turn?.kind === 'audio') {
      if (turn.playing) return 'turn_playing';
      if (this.#characters + chunk.text.length > this.#maxCharacters) return 'queue_full';
      turn.chunks.push(chunk.text);
      this.#addCharacters(turn, chunk.text.length);
      this.#emit({ type: 'transcript', turnId: turn.turnId, text: chunk.text });
      return 'queued';
    }
    if (turn?.final) return 'turn_final';
    if (!turn && this.#turns.size >= this.#maxTurns) return 'queue_full';
    if (this.#characters + chunk.text.length > this.#maxCharacters) return 'queue_full';
    if (!turn) {
      turn = this.#newTurn(chunk.turnId, 'text');
    }
    turn.chunks.push(chunk.text);
    this.#addCharacters(turn, chunk.text.length);
    this.#emit({ type: 'chunk', turnId: turn.turnId, index: turn.chunks.length - 1, text: chunk.text });
    if (chunk.isFinal) this.#finalize(turn);
    else this.#armAutoFinalize(turn);
    return 'queued';
  }

  /** Adds a decoded clip. A text turn not yet playing becomes an audio turn (its text = transcript). */
  addAudio(turnId: string, audio: A): QueueAnswer {
    const known = this.#answerForKnown(turnId);
    if (known) return known;
    let turn = this.#turns.get(turnId);
    if (turn?.playing) return 'turn_playing';
    if (turn?.kind === 'audio') return 'turn_final';
    if (!turn && this.#turns.size >= this.#maxTurns) return 'queue_full';
    if (!turn) turn = this.#newTurn(turnId, 'audio');
    turn.kind = 'audio';
    turn.audio = audio;
    this.#emit({ type: 'audio', turnId });
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

  /** The turn being played, if any. */
  playing(): PlayableTurn<A> | undefined {
    const head = this.#head();
    return head?.playing
      ? { turnId: head.turnId, kind: head.kind, chunks: head.chunks, audio: head.audio }
      : undefined;
  }

  /** Chunks of a turn still in the queue (e.g. to learn about chunks that arrived while playing). */
  chunksOf(turnId: string): readonly string[] | undefined {
    return this.#turns.get(turnId)?.chunks;
  }

  finishPlaying(turnId: string): void {
    const turn = this.#turns.get(turnId);
    if (!turn) return;
    this.#remove(turn);
    this.#finished.add(turnId);
    this.#emitReadyIfPlayable();
  }

  /** Clears every turn (the playing one too); returns the cleared turnIds in play order. */
  interrupt(): string[] {
    const ids = [...this.#turns.keys()];
    for (const turn of this.#turns.values()) this.#clock.clearTimeout(turn.timer);
    this.#turns.clear();
    this.#characters = 0;
    for (const id of ids) this.#discarded.add(id);
    if (ids.length > 0) this.#emit({ type: 'cleared', turnIds: ids });
    return ids;
  }

  /** Number of turns queued or playing. */
  get size(): number {
    return this.#turns.size;
  }

  get queuedCharacters(): number {
    return this.#characters;
  }

  onEvent(listener: (e: QueueEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const turn of this.#turns.values()) this.#clock.clearTimeout(turn.timer);
    this.#turns.clear();
    this.#listeners.clear();
  }

  #answerForKnown(turnId: string): QueueAnswer | undefined {
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
      if (this.#turns.get(turn.turnId) === turn && !turn.final) this.#finalize(turn);
    }, this.#autoFinalizeMs);
  }

  #finalize(turn: Turn<A>): void {
    this.#clock.clearTimeout(turn.timer);
    turn.timer = undefined;
    turn.final = true;
    this.#emit({ type: 'final', turnId: turn.turnId });
    this.#emitReadyIfPlayable();
  }

  #head(): Turn<A> | undefined {
    return this.#turns.values().next().value;
  }

  #emitReadyIfPlayable(): void {
    const head = this.#head();
    if (head && head.final && !head.playing) this.#emit({ type: 'ready' });
  }

  #emit(e: QueueEvent): void {
    for (const l of [...this.#listeners]) l(e);
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
