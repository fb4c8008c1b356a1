/**
 * A session's streamed audio turns (the audio WebSocket): opened into the speech queue like any
 * turn, written and ended by the producer, and over when played out, interrupted or cleared —
 * which it reports once per turn as `audioTurnEnded` (with how much played and how often it ran
 * dry). Each turn played out sets the next one's jitter hold (its measured arrival jitter). The
 * session's unplayed streamed audio is the producer's backpressure signal.
 */
import { TURN_AUTO_FINALIZE_MS } from '@mouthpiece/protocol';
import type { AudioTurnStart, AudioTurnWriteAnswer, EngineEvent, QueueAnswer } from '../contract/types.js';
import { AudioStreamTurn, JITTER_START_MS, nextHoldMs } from './audio-stream-turn.js';
import { systemQueueClock, type QueueClock } from './speech-queue.js';
import type { TurnAudio } from './turn-audio.js';

export interface AudioStreamsOptions {
  sessionId: string;
  clock?: QueueClock | undefined;
  autoFinalizeMs?: number | undefined;
  /** Queues the turn's audio (the session's speech queue). */
  enqueue(turnId: string, audio: TurnAudio): QueueAnswer;
  emit(event: EngineEvent): void;
}

export class AudioStreams {
  readonly #o: AudioStreamsOptions;
  readonly #turns = new Map<string, AudioStreamTurn>();
  /** The jitter hold of the next turn: learned from the session's earlier turns. */
  #holdMs = JITTER_START_MS;

  constructor(o: AudioStreamsOptions) {
    this.#o = o;
  }

  open(start: AudioTurnStart): QueueAnswer {
    const turn = new AudioStreamTurn({
      turnId: start.turnId,
      sampleRateHz: start.sampleRateHz,
      clock: this.#o.clock ?? systemQueueClock,
      autoFinalizeMs: this.#o.autoFinalizeMs ?? TURN_AUTO_FINALIZE_MS,
      holdMs: this.#holdMs,
    });
    const answer = this.#o.enqueue(start.turnId, turn.audio);
    if (answer !== 'queued') {
      turn.close();
      return answer;
    }
    this.#turns.set(start.turnId, turn);
    return answer;
  }

  write(turnId: string, pcm: Uint8Array): AudioTurnWriteAnswer {
    const kind = this.#turns.get(turnId)?.write(pcm) ?? 'closed';
    return { kind, bufferedMs: this.bufferedMs };
  }

  end(turnId: string): void {
    this.#turns.get(turnId)?.end();
  }

  /** A turn left the queue (played out, interrupted, cleared); not one of these: nothing. */
  over(turnId: string, interrupted: boolean): void {
    const turn = this.#turns.get(turnId);
    if (!turn) return;
    this.#turns.delete(turnId);
    const playedMs = turn.playedMs;
    if (!interrupted) this.#holdMs = nextHoldMs(this.#holdMs, turn);
    turn.close();
    this.#o.emit({
      type: 'audioTurnEnded',
      sessionId: this.#o.sessionId,
      turnId,
      interrupted,
      playedMs,
      underruns: turn.underruns,
    });
  }

  /** Unplayed streamed audio the session holds (ms). */
  get bufferedMs(): number {
    let ms = 0;
    for (const t of this.#turns.values()) ms += t.unplayedMs;
    return Math.round(ms);
  }

  /** The session ended: every turn is dropped (no events: the session's end says it). */
  close(): void {
    for (const t of this.#turns.values()) t.close();
    this.#turns.clear();
  }
}
