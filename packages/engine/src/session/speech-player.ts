/**
 * Plays one turn at a time onto the media clock: pulls each 10 ms chunk from the turn's stream
 * (turn-audio.ts), tells the stream when a piece has played out (which lets synthesis run further
 * ahead), reports speakingStart / word / speakingEnd at the sample where they happen, and answers
 * what the mouth does at a sample ahead (for the frame being rendered). The stream's producer
 * closes it when the turn is over (engine-session.ts: on `done` and on interrupt).
 *
 * Joins are seamless (join-smoother.ts): where the sound changes source within a turn (one piece
 * to the next, a piece to the silence of a wait or a stream running dry, and back), the step
 * between the last sample played and the next one bleeds away over 3 ms instead of clicking. No
 * sample is delayed and no timing moves.
 */
import { REST_MOUTH, type MouthParams } from '../face-state.js';
import { failureReason, type PieceRead, type TurnAudio, type Word } from './turn-audio.js';
import { msToSamples } from '../clock/media-clock.js';
import { JoinSmoother } from './join-smoother.js';

export type PlayerEvent =
  | { type: 'speakingStart'; turnId: string }
  | { type: 'word'; turnId: string; text: string; startMs: number; endMs: number }
  | { type: 'speakingEnd'; turnId: string; interrupted: boolean }
  /** The turn's speech could not be made (a voice provider failed); after its speakingEnd. */
  | { type: 'failed'; turnId: string; reason: string; detail: string }
  /** The turn is over (after its speakingEnd, or silently if it had nothing to say). */
  | { type: 'done'; turnId: string };

const SAMPLES_PER_MS = msToSamples(1);

export class SpeechPlayer {
  #turn: TurnAudio | undefined;
  #piece = 0;
  #pos = 0; // sample within the piece
  #turnPos = 0; // samples of this turn already played
  #pieceStart = 0; // turn position where the current piece began
  #started = false;
  #nextWord = 0;
  readonly #joins = new JoinSmoother();

  get playing(): string | undefined {
    return this.#turn?.turnId;
  }

  start(turn: TurnAudio): void {
    this.#turn = turn;
    this.#piece = 0;
    this.#pos = 0;
    this.#turnPos = 0;
    this.#pieceStart = 0;
    this.#started = false;
    this.#nextWord = 0;
    this.#joins.reset();
  }

  /** Stops now; returns the turn that was playing. */
  stop(): string | undefined {
    const id = this.#turn?.turnId;
    this.#turn = undefined;
    return id;
  }

  /** Fills `out` (silence where nothing plays) and returns what happened in these samples. */
  pull(out: Int16Array): PlayerEvent[] {
    out.fill(0);
    const turn = this.#turn;
    if (!turn) {
      this.#joins.smooth(out); // a ramp begun at the turn's end runs out
      return [];
    }
    const events: PlayerEvent[] = [];
    const joins = this.#joins;
    let filled = 0;
    for (;;) {
      const read = turn.read(this.#piece);
      // an ended turn ends at its last sample, even when that is the end of this chunk
      if (read.kind === 'end' || read.kind === 'failed') {
        this.#finish(turn, read, events);
        break;
      }
      if (read.kind === 'wait' || filled >= out.length) break; // waiting for synthesis: silence
      const piece = read.piece;
      if (piece.streaming && this.#pos >= piece.pcm.length) {
        turn.ranDry(); // streaming: silence until its next audio comes (an underrun)
        break;
      }
      if (!this.#started) {
        this.#started = true;
        events.push({ type: 'speakingStart', turnId: turn.turnId });
      }
      const n = Math.min(out.length - filled, piece.pcm.length - this.#pos);
      this.#words(turn.turnId, piece.words, this.#pos + (out.length - filled), events);
      out.set(piece.pcm.subarray(this.#pos, this.#pos + n), filled);
      joins.copied(out, filled, this.#piece, this.#pos, n, piece.streaming ? undefined : piece.pcm.length);
      filled += n;
      this.#pos += n;
      this.#turnPos += n;
      turn.played(this.#turnPos);
      if (this.#pos >= piece.pcm.length && !piece.streaming) {
        turn.consumed(this.#piece);
        this.#piece++;
        this.#pos = 0;
        this.#pieceStart = this.#turnPos;
        this.#nextWord = 0;
      }
    }
    joins.silentFrom(filled, out.length);
    joins.smooth(out);
    return events;
  }

  /** Word events for the words of the current piece that start before sample `until`. */
  #words(turnId: string, words: readonly Word[], until: number, events: PlayerEvent[]): void {
    while (this.#nextWord < words.length && words[this.#nextWord]!.startSample <= until) {
      const w = words[this.#nextWord++]!;
      events.push({
        type: 'word',
        turnId,
        text: w.text,
        startMs: Math.round((this.#pieceStart + w.startSample) / SAMPLES_PER_MS),
        endMs: Math.round((this.#pieceStart + w.endSample) / SAMPLES_PER_MS),
      });
    }
  }

  #finish(
    turn: TurnAudio,
    read: Extract<PieceRead, { kind: 'end' | 'failed' }>,
    events: PlayerEvent[],
  ): void {
    if (this.#started) events.push({ type: 'speakingEnd', turnId: turn.turnId, interrupted: false });
    if (read.kind === 'failed')
      events.push({
        type: 'failed',
        turnId: turn.turnId,
        reason: failureReason(read.error),
        detail: read.error.message,
      });
    events.push({ type: 'done', turnId: turn.turnId });
    this.#turn = undefined;
  }

  /**
   * Mouth and emphasis `ahead` samples from now (and the sound there, when the piece's mouth came
   * from audio alone), or undefined when no turn is sounding.
   */
  mouthAt(ahead: number): { mouth: MouthParams; emphasis: number; sound?: Float32Array } | undefined {
    const turn = this.#turn;
    if (!turn || !this.#started) return undefined;
    let piece = this.#piece;
    let pos = this.#pos + ahead;
    for (;;) {
      const read = turn.read(piece);
      if (read.kind !== 'piece') return { mouth: { ...REST_MOUTH }, emphasis: 0 };
      const p = read.piece;
      if (pos < p.pcm.length) {
        const sound = p.mouth.soundAt?.(pos);
        return { mouth: p.mouth.at(pos), emphasis: p.mouth.emphasisAt(pos), ...(sound ? { sound } : {}) };
      }
      pos -= p.pcm.length;
      piece++;
    }
  }
}
