/**
 * Plays one turn at a time onto the media clock: fills each 10 ms chunk from the turn's pieces,
 * reports speakingStart / word / speakingEnd at the sample where they happen, and answers what
 * the mouth does at a sample ahead (for the frame being rendered).
 */
import { REST_MOUTH, type MouthParams } from '../face-state.js';
import { failureReason, type TurnAudio } from './turn-audio.js';
import { msToSamples } from '../clock/media-clock.js';

export type PlayerEvent =
  | { type: 'speakingStart'; turnId: string }
  | { type: 'word'; turnId: string; text: string; startMs: number; endMs: number }
  | { type: 'speakingEnd'; turnId: string; interrupted: boolean }
  /** The turn's speech could not be made (a voice provider failed); after its speakingEnd. */
  | { type: 'failed'; turnId: string; reason: string; detail: string }
  /** A piece of the turn has been played out (its memory of what is ahead shrank). */
  | { type: 'piece'; turnId: string }
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

  get playing(): string | undefined {
    return this.#turn?.turnId;
  }

  /** How many pieces of a turn have been played out (0 unless it is the playing turn). */
  playedPieces(turnId: string): number {
    return this.#turn?.turnId === turnId ? this.#piece : 0;
  }

  start(turn: TurnAudio): void {
    this.#turn = turn;
    this.#piece = 0;
    this.#pos = 0;
    this.#turnPos = 0;
    this.#pieceStart = 0;
    this.#started = false;
    this.#nextWord = 0;
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
    if (!turn) return [];
    const events: PlayerEvent[] = [];
    let filled = 0;
    while (filled < out.length) {
      const piece = turn.pieces[this.#piece];
      if (!piece) {
        const done = turn.complete && this.#piece >= turn.pieces.length;
        if (done || turn.failed) {
          if (this.#started) events.push({ type: 'speakingEnd', turnId: turn.turnId, interrupted: false });
          if (turn.failed)
            events.push({
              type: 'failed',
              turnId: turn.turnId,
              reason: failureReason(turn.failed),
              detail: turn.failed.message,
            });
          events.push({ type: 'done', turnId: turn.turnId });
          this.#turn = undefined;
        }
        break; // waiting for synthesis: silence for the rest of this chunk
      }
      if (piece.open && this.#pos >= piece.pcm.length) break; // streaming: wait for its next audio
      if (!this.#started) {
        this.#started = true;
        events.push({ type: 'speakingStart', turnId: turn.turnId });
      }
      while (
        this.#nextWord < piece.words.length &&
        piece.words[this.#nextWord]!.startSample <= this.#pos + (out.length - filled)
      ) {
        const w = piece.words[this.#nextWord++]!;
        events.push({
          type: 'word',
          turnId: turn.turnId,
          text: w.text,
          startMs: Math.round((this.#pieceStart + w.startSample) / SAMPLES_PER_MS),
          endMs: Math.round((this.#pieceStart + w.endSample) / SAMPLES_PER_MS),
        });
      }
      const n = Math.min(out.length - filled, piece.pcm.length - this.#pos);
      out.set(piece.pcm.subarray(this.#pos, this.#pos + n), filled);
      filled += n;
      this.#pos += n;
      this.#turnPos += n;
      if (this.#pos >= piece.pcm.length && !piece.open) {
        events.push({ type: 'piece', turnId: turn.turnId });
        this.#piece++;
        this.#pos = 0;
        this.#pieceStart = this.#turnPos;
        this.#nextWord = 0;
      }
    }
    return events;
  }

  /** Mouth and emphasis `ahead` samples from now, or undefined when no turn is sounding. */
  mouthAt(ahead: number): { mouth: MouthParams; emphasis: number } | undefined {
    const turn = this.#turn;
    if (!turn || !this.#started) return undefined;
    let piece = this.#piece;
    let pos = this.#pos + ahead;
    for (;;) {
      const p = turn.pieces[piece];
      if (!p) return { mouth: { ...REST_MOUTH }, emphasis: 0 };
      if (pos < p.pcm.length) return { mouth: p.mouth.at(pos), emphasis: p.mouth.emphasisAt(pos) };
      pos -= p.pcm.length;
      piece++;
    }
  }
}
