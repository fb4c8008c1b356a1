/**
 * A turn of PCM streamed in by a backend (the audio WebSocket, docs/api.md): another filler of a
 * `TurnAudio`, played by the same player as text and uploaded turns. The audio arrives at the
 * producer's rate, is resampled to the 48 kHz media clock as it comes (speech/stream-resampler.ts)
 * and gets the audio-only mouth live (lipsync/live-audio-mouth.ts), so the mouth — and a video
 * avatar's sound matching — follows the audio while it streams.
 *
 * A jitter buffer decides when audio reaches the player: it is held for the target delay after
 * the first of it arrives (JITTER_START_MS: chunks arriving up to ±30 ms off real time then play
 * without a gap, whatever their size; a session's later turns use what its earlier ones measured,
 * `nextHoldMs`), then everything goes as it comes. When playback runs dry
 * (an underrun: the player plays silence and the mouth closes) the delay grows by JITTER_STEP_MS
 * up to JITTER_MAX_MS and the turn buffers again. `end` releases all at once; a producer silent
 * for `autoFinalizeMs` ends the turn with what came, unless the session holds the producer back
 * (its unplayed audio is over AUDIO_STREAM_MAX_BUFFERED_MS).
 */
import { AUDIO_STREAM_MAX_BUFFERED_MS, AUDIO_STREAM_MAX_TURN_MS } from '@mouthpiece/protocol';
import { SAMPLE_RATE_HZ, msToSamples } from '../clock/media-clock.js';
import { LiveAudioMouth } from '../lipsync/live-audio-mouth.js';
import { StreamResampler } from '../speech/stream-resampler.js';
import type { QueueClock } from './speech-queue.js';
import { TurnAudio, type PieceWriter } from './turn-audio.js';

/** How long audio is held before it starts to play (ms): twice the ±30 ms of jitter it absorbs. */
export const JITTER_START_MS = 60;
/** Added to the target after each underrun (ms). */
export const JITTER_STEP_MS = 60;
/** The most the target grows to (ms). */
export const JITTER_MAX_MS = 600;
/** The least hold a session learns down to, and what it keeps beyond the jitter it measured (ms). */
export const JITTER_MIN_MS = 30;
export const JITTER_MARGIN_MS = 20;
/** Arrivals are timed only while less than this is unplayed (ahead of it, jitter does not matter). */
const TIMED_BELOW_MS = 1000;

/**
 * The hold for a session's next turn, from its last: the arrival jitter it measured plus a margin
 * (JITTER_MIN_MS at least), and never less than the hold its underruns grew to. A turn too short to
 * tell (under a second of audio) leaves the hold as it was.
 */
export function nextHoldMs(previous: number, turn: AudioStreamTurn): number {
  if (turn.receivedMs < 1000) return previous;
  const learned = Math.max(JITTER_MIN_MS, Math.round(turn.jitterMs) + JITTER_MARGIN_MS);
  return Math.min(JITTER_MAX_MS, turn.underruns > 0 ? Math.max(learned, turn.targetMs) : learned);
}

export interface AudioStreamTurnOptions {
  turnId: string;
  sampleRateHz: number;
  clock: QueueClock;
  autoFinalizeMs: number;
  /** The hold before the first audio plays (default JITTER_START_MS). */
  holdMs?: number;
}

export type AudioTurnWriteResult = 'written' | 'too_long' | 'closed';

const SAMPLES_PER_MS = msToSamples(1);
/** A turn's audio goes to the player in pieces of at most 10 s. */
const PIECE_SAMPLES = msToSamples(10_000);

export class AudioStreamTurn {
  readonly audio: TurnAudio;
  readonly #o: AudioStreamTurnOptions;
  readonly #resampler = new StreamResampler(SAMPLE_RATE_HZ);
  #mouth = new LiveAudioMouth();
  #writer: PieceWriter | undefined;
  #pending: Int16Array[] = [];
  #pendingSamples = 0;
  /** Input samples (at the producer's rate) received. */
  #inputSamples = 0;
  /** 48 kHz samples made so far (pending or released). */
  #samples = 0;
  #targetMs: number;
  #hold: unknown;
  /** Arrival time minus the audio's place in the turn: its least so far, and the most above it. */
  #earliest = Infinity;
  #jitterMs = 0;
  readonly #now: () => number;
  #buffering = true;
  #underrunsSeen = 0;
  #ended = false;
  #timer: unknown;
  /** An odd byte left from the last write (a sample split across frames). */
  #carry: number | undefined;

  constructor(o: AudioStreamTurnOptions) {
    this.#o = o;
    this.#targetMs = o.holdMs ?? JITTER_START_MS;
    this.#now = o.clock.now?.bind(o.clock) ?? (() => performance.now());
    this.audio = new TurnAudio(o.turnId);
    this.#arm();
  }

  get turnId(): string {
    return this.audio.turnId;
  }

  /** The producer's side is over (end, silence, or closed): writes answer `closed`. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Audio received but not yet played, in ms (the session's backpressure sums these). */
  get unplayedMs(): number {
    return Math.max(0, this.#samples - this.audio.playedSamples) / SAMPLES_PER_MS;
  }

  get playedMs(): number {
    return Math.round(this.audio.playedSamples / SAMPLES_PER_MS);
  }

  /** How far arrivals strayed behind real time (ms; 0 for a producer ahead of it). */
  get jitterMs(): number {
    return this.#jitterMs;
  }

  /** Audio received so far (ms). */
  get receivedMs(): number {
    return (1000 * this.#inputSamples) / this.#o.sampleRateHz;
  }

  get underruns(): number {
    return this.audio.underruns;
  }

  /** How long the jitter buffer holds audio before it plays (ms). */
  get targetMs(): number {
    return this.#targetMs;
  }

  /** Mono s16le PCM at the turn's rate, any number of bytes (a sample may span two writes). */
  write(bytes: Uint8Array): AudioTurnWriteResult {
    if (this.#ended || this.audio.closed) return 'closed';
    const pcm = this.#samplesOf(bytes);
    const room = Math.floor((AUDIO_STREAM_MAX_TURN_MS * this.#o.sampleRateHz) / 1000) - this.#inputSamples;
    const take = pcm.length > room ? pcm.subarray(0, Math.max(0, room)) : pcm;
    if (take.length > 0) {
      if (this.unplayedMs < TIMED_BELOW_MS) this.#time();
      this.#inputSamples += take.length;
      this.#keep(this.#resampler.push(take, this.#o.sampleRateHz));
      this.#arm();
    }
    return take.length < pcm.length ? 'too_long' : 'written';
  }

  /** No more audio: what is held plays out, then the turn is over. */
  end(): void {
    if (this.#ended || this.audio.closed) return;
    this.#ended = true;
    this.#o.clock.clearTimeout(this.#timer);
    this.#keep(this.#resampler.end());
    this.#release(true);
    this.#finishPiece();
    this.audio.end();
  }

  /** Interrupted, played out or the session closed: nothing more plays or is kept. */
  close(): void {
    this.#o.clock.clearTimeout(this.#timer);
    this.#o.clock.clearTimeout(this.#hold);
    this.#pending = [];
    this.#pendingSamples = 0;
    this.audio.close();
    this.#ended = true;
  }

  /** Times an arrival against real time from the turn's start (for the session's next hold). */
  #time(): void {
    const late = this.#now() - this.receivedMs;
    this.#earliest = Math.min(this.#earliest, late);
    this.#jitterMs = Math.max(this.#jitterMs, late - this.#earliest);
  }

  #samplesOf(bytes: Uint8Array): Int16Array {
    if (bytes.length === 0) return new Int16Array(0);
    const lead = this.#carry === undefined ? 0 : 1;
    const count = Math.floor((bytes.length + lead) / 2);
    const pcm = new Int16Array(count);
    for (let i = 0; i < count; i++) {
      const lo = lead === 1 && i === 0 ? this.#carry! : bytes[2 * i - lead]!;
      const hi = bytes[2 * i + 1 - lead]!;
      pcm[i] = ((hi << 24) >> 16) | lo;
    }
    const used = 2 * count - lead;
    this.#carry = used < bytes.length ? bytes[bytes.length - 1] : undefined;
    return pcm;
  }

  #keep(pcm: Int16Array): void {
    if (pcm.length === 0) return;
    this.#samples += pcm.length;
    this.#pending.push(pcm);
    this.#pendingSamples += pcm.length;
    if (this.audio.underruns > this.#underrunsSeen) {
      // playback ran dry since the last write: hold more before playing again
      this.#underrunsSeen = this.audio.underruns;
      this.#targetMs = Math.min(JITTER_MAX_MS, this.#targetMs + JITTER_STEP_MS);
      this.#buffering = true;
    }
    if (!this.#buffering) this.#release(false);
    else if (this.#hold === undefined)
      this.#hold = this.#o.clock.setTimeout(() => {
        this.#hold = undefined;
        this.#release(true);
      }, this.#targetMs);
  }

  /** Hands the held audio to the player: as it comes, or (`all`) when the hold is over or at the end. */
  #release(all: boolean): void {
    if (!all && this.#buffering) return;
    this.#o.clock.clearTimeout(this.#hold);
    this.#hold = undefined;
    this.#buffering = false;
    if (this.#pendingSamples === 0) return;
    for (const pcm of this.#pending) this.#stream(pcm);
    this.#pending = [];
    this.#pendingSamples = 0;
    this.#mouth.update(this.#writer!.streamed);
  }

  /**
   * Into the current piece, up to PIECE_SAMPLES; then the next (so the live mouth's work per
   * chunk stays bounded however long the turn). A piece is finished only when the next has audio.
   */
  #stream(pcm: Int16Array): void {
    let rest = pcm;
    while (rest.length > 0) {
      if (!this.#writer || this.#writer.streamed.length >= PIECE_SAMPLES) {
        this.#finishPiece();
        this.#writer = this.audio.reserve();
        this.#mouth = new LiveAudioMouth();
      }
      const part = rest.subarray(0, PIECE_SAMPLES - this.#writer.streamed.length);
      this.#writer.stream(part, this.#mouth);
      rest = rest.subarray(part.length);
    }
  }

  #finishPiece(): void {
    if (!this.#writer?.piece) return;
    this.#mouth.update(this.#writer.streamed, true);
    this.#writer.finish();
  }

  /** A producer silent for autoFinalizeMs ends the turn, unless the session holds it back. */
  #arm(): void {
    this.#o.clock.clearTimeout(this.#timer);
    this.#timer = this.#o.clock.setTimeout(() => {
      if (this.#ended || this.audio.closed) return;
      if (this.unplayedMs >= AUDIO_STREAM_MAX_BUFFERED_MS) this.#arm();
      else this.end();
    }, this.#o.autoFinalizeMs);
  }
}
