/**
 * One audio WebSocket of a session (routes/audio-stream.ts; the protocol is
 * packages/protocol/src/audio-stream.ts, documented in docs/api.md). It turns the client's
 * messages into EngineHost calls in arrival order (openAudioTurn, writeAudioTurn, endAudioTurn,
 * interrupt) and the engine's events for this socket's turns into playbackStarted /
 * playbackFinished. It holds no audio: frames go to the engine as they come, and the socket stops
 * being read (TCP backpressure) while the session holds more than AUDIO_STREAM_MAX_BUFFERED_MS of
 * unplayed audio, or while MAX_INFLIGHT_BYTES of frames wait for the engine.
 */
import {
  AUDIO_STREAM_ERROR,
  AUDIO_STREAM_MAX_BUFFERED_MS,
  AUDIO_STREAM_MAX_TEXT_BYTES,
  AUDIO_STREAM_MAX_TURN_MS,
  formatAudioStreamMessage,
  parseAudioStreamMessage,
  type AudioStreamClientMessage,
  type AudioStreamErrorCode,
  type AudioStreamServerMessage,
} from '@mouthpiece/protocol';
import { EngineError, type EngineEvent, type EngineHost } from '@mouthpiece/engine/host';
import type { Clock } from '../clock.js';

/** The socket as this handler needs it (ws's WebSocket). */
export interface AudioSocketPort {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  pause(): void;
  resume(): void;
}

/** Frames read but not yet taken by the engine before the socket stops being read. */
const MAX_INFLIGHT_BYTES = 1024 * 1024;
/** How often a held-back socket asks whether the session's audio has drained. */
const DRAIN_POLL_MS = 50;

interface OpenTurn {
  turnId: string;
  maxBytes: number;
  bytes: number;
  /** Its audio no longer goes anywhere (cleared, too long, or the engine closed it). */
  dropping: boolean;
  /** The engine opened it (only then does this socket end it). */
  accepted: boolean;
}

export interface AudioSocketDeps {
  sessionId: string;
  engine: EngineHost;
  socket: AudioSocketPort;
  /** Times the drain poll of a held-back socket. */
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  /** The session is active (called on each turn: it keeps the session from idling out). */
  touch(): void;
  log: { warn(o: object, m: string): void };
}

export class AudioSocket {
  readonly #d: AudioSocketDeps;
  #turn: OpenTurn | undefined;
  /** This socket's turns not yet reported finished. */
  readonly #mine = new Set<string>();
  #chain: Promise<void> = Promise.resolve();
  #inflight = 0;
  #heldBack = false;
  #paused = false;
  #closed = false;
  readonly #unsubscribe: () => void;
  #poll: unknown;

  constructor(d: AudioSocketDeps) {
    this.#d = d;
    this.#unsubscribe = d.engine.onEvent((e) => this.#onEngineEvent(e));
  }

  /** A frame from the client, in order. */
  receive(data: Buffer, isBinary: boolean): void {
    if (this.#closed) return;
    if (!isBinary) {
      if (data.length > AUDIO_STREAM_MAX_TEXT_BYTES) {
        this.#error(
          AUDIO_STREAM_ERROR.BAD_MESSAGE,
          `a text frame may hold ${AUDIO_STREAM_MAX_TEXT_BYTES} bytes at most`,
        );
        return;
      }
      const parsed = parseAudioStreamMessage(data.toString('utf8'));
      if (!parsed.ok) this.#error(parsed.code, parsed.message);
      else this.#control(parsed.message);
      return;
    }
    const turn = this.#turn;
    if (!turn) {
      this.#error(AUDIO_STREAM_ERROR.NO_TURN, 'send {"type":"start","turnId","sampleRate"} before audio');
      return;
    }
    this.#d.touch(); // a producer streaming is activity, even into a dropped turn
    if (turn.dropping) return;
    const room = turn.maxBytes - turn.bytes;
    const bytes = data.length > room ? data.subarray(0, Math.max(0, room)) : data;
    turn.bytes += bytes.length;
    if (bytes.length < data.length) {
      turn.dropping = true;
      this.#error(
        AUDIO_STREAM_ERROR.TURN_TOO_LONG,
        `a turn holds at most ${AUDIO_STREAM_MAX_TURN_MS / 1000} s of audio; the rest of this turn is dropped: end it and start another`,
        turn.turnId,
      );
    }
    const last = bytes.length < data.length; // the part up to the limit still plays
    if (bytes.length > 0) this.#enqueue(bytes.length, () => this.#write(turn, new Uint8Array(bytes), last));
  }

  /** The socket closed: a turn left open ends with what arrived. */
  closed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#d.clock.clearTimeout(this.#poll);
    const turn = this.#turn;
    this.#turn = undefined;
    if (turn) this.#enqueue(0, () => this.#end(turn));
    this.#chain = this.#chain.finally(() => this.#unsubscribe());
  }

  /** The session ended: the client is told, and the socket closes. */
  sessionEnded(): void {
    if (this.#closed) return;
    this.#send({
      type: 'error',
      code: AUDIO_STREAM_ERROR.SESSION_ENDED,
      message: 'the session has ended',
      fatal: true,
    });
    this.#d.socket.close(1000, 'session_ended');
    this.closed();
  }

  /** A control message: decided now (frames after it see its effect), its engine call queued. */
  #control(m: AudioStreamClientMessage): void {
    const { engine, sessionId } = this.#d;
    switch (m.type) {
      case 'start': {
        if (this.#turn) {
          this.#error(
            AUDIO_STREAM_ERROR.TURN_OPEN,
            `turn ${this.#turn.turnId} is still open: end it first`,
            m.turnId,
          );
          return;
        }
        const turn: OpenTurn = {
          turnId: m.turnId,
          maxBytes: 2 * Math.floor((AUDIO_STREAM_MAX_TURN_MS * m.sampleRate) / 1000),
          bytes: 0,
          dropping: false,
          accepted: false,
        };
        this.#turn = turn;
        this.#d.touch();
        this.#enqueue(0, async () => {
          const answer = await engine.openAudioTurn(sessionId, {
            turnId: m.turnId,
            sampleRateHz: m.sampleRate,
          });
          if (answer === 'queued') {
            turn.accepted = true;
            this.#mine.add(m.turnId);
          } else this.#refused(turn, answer);
        });
        return;
      }
      case 'end': {
        const turn = this.#turn;
        if (!turn) {
          this.#error(
            AUDIO_STREAM_ERROR.NO_TURN,
            `no turn is open on this socket (end named ${m.turnId})`,
            m.turnId,
          );
          return;
        }
        if (turn.turnId !== m.turnId) {
          this.#error(
            AUDIO_STREAM_ERROR.TURN_OPEN,
            `end names ${m.turnId} but the open turn is ${turn.turnId}`,
          );
          return;
        }
        this.#turn = undefined;
        this.#d.touch();
        this.#enqueue(0, () => this.#end(turn));
        return;
      }
      case 'clear':
        if (this.#turn) this.#turn.dropping = true; // its frames still in flight go nowhere
        this.#enqueue(0, () => engine.interrupt(sessionId));
        return;
    }
  }

  /** The engine refused the turn: the client is told; its frames go nowhere until its end. */
  #refused(turn: OpenTurn, answer: 'queue_full' | 'turn_final' | 'turn_playing' | 'discarded'): void {
    turn.dropping = true;
    if (answer === 'queue_full')
      this.#error(
        AUDIO_STREAM_ERROR.QUEUE_FULL,
        'the session queue is full: wait for a turn to finish',
        turn.turnId,
      );
    else
      this.#error(
        AUDIO_STREAM_ERROR.TURN_EXISTS,
        `turn ${turn.turnId} is taken in this session: use a new turnId`,
        turn.turnId,
      );
  }

  async #end(turn: OpenTurn): Promise<void> {
    if (turn.accepted) await this.#d.engine.endAudioTurn(this.#d.sessionId, turn.turnId);
  }

  async #write(turn: OpenTurn, pcm: Uint8Array, last = false): Promise<void> {
    if (!turn.accepted || (turn.dropping && !last && pcm.length > 0)) return; // refused, cleared or too long
    this.#d.touch(); // streaming, or held back while it plays, is activity
    const answer = await this.#d.engine.writeAudioTurn(this.#d.sessionId, turn.turnId, pcm);
    if (answer.kind === 'closed') turn.dropping = true; // ended by silence, or interrupted
    this.#holdBack(answer.bufferedMs > AUDIO_STREAM_MAX_BUFFERED_MS, turn);
  }

  /** Stops reading while the session holds too much unplayed audio; asks again until it drains. */
  #holdBack(hold: boolean, turn: OpenTurn): void {
    this.#heldBack = hold;
    this.#flow();
    this.#d.clock.clearTimeout(this.#poll);
    if (hold && !this.#closed)
      this.#poll = this.#d.clock.setTimeout(
        () => this.#enqueue(0, () => this.#write(turn, new Uint8Array(0))),
        DRAIN_POLL_MS,
      );
  }

  #enqueue(bytes: number, op: () => Promise<void>): void {
    this.#inflight += bytes;
    this.#flow();
    this.#chain = this.#chain
      .then(op)
      .catch((err: unknown) => this.#failed(err))
      .finally(() => {
        this.#inflight -= bytes;
        this.#flow();
      });
  }

  #flow(): void {
    const pause = !this.#closed && (this.#heldBack || this.#inflight > MAX_INFLIGHT_BYTES);
    if (pause === this.#paused) return;
    this.#paused = pause;
    if (pause) this.#d.socket.pause();
    else this.#d.socket.resume();
  }

  #failed(err: unknown): void {
    if (err instanceof EngineError && err.code === 'unknown_session') {
      this.sessionEnded();
      return;
    }
    this.#d.log.warn({ sessionId: this.#d.sessionId, err }, 'audio socket engine call failed');
    this.#error(AUDIO_STREAM_ERROR.SESSION_ENDED, 'the session media is unavailable', undefined, true);
    this.#d.socket.close(1011, 'engine_unavailable');
    this.closed();
  }

  #onEngineEvent(e: EngineEvent): void {
    if (e.type === 'speakingStart' && e.sessionId === this.#d.sessionId && this.#mine.has(e.turnId))
      this.#send({ type: 'playbackStarted', turnId: e.turnId });
    if (e.type === 'audioTurnEnded' && e.sessionId === this.#d.sessionId && this.#mine.delete(e.turnId))
      this.#send({
        type: 'playbackFinished',
        turnId: e.turnId,
        interrupted: e.interrupted,
        playedMs: e.playedMs,
      });
  }

  #error(code: AudioStreamErrorCode, message: string, turnId?: string, fatal?: boolean): void {
    this.#send({
      type: 'error',
      code,
      message,
      ...(turnId === undefined ? {} : { turnId }),
      ...(fatal ? { fatal } : {}),
    });
  }

  #send(m: AudioStreamServerMessage): void {
    try {
      this.#d.socket.send(formatAudioStreamMessage(m));
    } catch {
      // the socket is closing: nothing to tell
    }
  }
}
