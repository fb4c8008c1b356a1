/**
 * The audio of one turn, arriving piece by piece: a text turn gets a piece per synthesized
 * sentence (synthesis starts as chunks arrive), an audio turn one decoded clip. The player
 * consumes pieces in order as they become ready.
 */
import { LiveAudioMouth } from '../lipsync/live-audio-mouth.js';
import type { MouthTrack } from '../lipsync/mouth-track.js';
import { buildMouthTrack } from '../lipsync/mouth-track.js';
import { splitSentences } from '../speech/sentences.js';
import type { Synthesizer } from '../speech/synthesis-scheduler.js';
import { trimLeadingSilence } from '../speech/trim.js';
import { analyzeAudioMouth } from '../lipsync/audio-mouth.js';

export interface Piece {
  pcm: Int16Array;
  mouth: MouthTrack;
  words: Array<{ text: string; startSample: number; endSample: number }>;
  /** Still streaming in from a provider: the player waits at its end instead of moving on. */
  open?: boolean;
}

/** Why a turn failed, for `turnFailed` (a provider's reason, else `synthesis_failed`). */
export function failureReason(err: Error): string {
  const reason = (err as { reason?: unknown }).reason;
  return typeof reason === 'string' ? reason : 'synthesis_failed';
}

export class TurnAudio {
  readonly turnId: string;
  readonly pieces: Array<Piece | undefined> = [];
  #complete = false;
  #failed: Error | undefined;

  constructor(turnId: string) {
    this.turnId = turnId;
  }

  /** Reserves the next slot; fill it with `set` (pieces may finish out of order). */
  reserve(): number {
    this.pieces.push(undefined);
    return this.pieces.length - 1;
  }

  set(index: number, piece: Piece): void {
    this.pieces[index] = piece;
  }

  fail(err: Error): void {
    this.#failed = err;
  }

  get failed(): Error | undefined {
    return this.#failed;
  }

  markComplete(): void {
    this.#complete = true;
  }

  get complete(): boolean {
    return this.#complete;
  }
}

/** Synthesizes a text turn sentence by sentence as chunks arrive; `finish()` flushes the rest. */
export class TextTurnSynth {
  readonly audio: TurnAudio;
  readonly #tts: Synthesizer;
  readonly #voiceId: string;
  readonly #speed: number;
  #pending = '';
  #inflight: Promise<void>[] = [];
  #cancelled = false;
  /** Withdraws this turn's requests still waiting for synthesis (interrupt, end). */
  readonly #abort = new AbortController();

  constructor(turnId: string, tts: Synthesizer, voiceId: string, speed: number) {
    this.audio = new TurnAudio(turnId);
    this.#tts = tts;
    this.#voiceId = voiceId;
    this.#speed = speed;
  }

  addText(text: string): void {
    this.#pending += text;
    const sentences = splitSentences(this.#pending);
    // the last sentence may still grow unless it already ends with a terminator
    const lastDone = /[.!?…。！？]["')\]]*\s*$/.test(this.#pending);
    const ready = lastDone ? sentences : sentences.slice(0, -1);
    if (ready.length === 0) return;
    this.#pending = lastDone ? '' : (sentences.at(-1) ?? '');
    for (const s of ready) this.#synthesize(s);
  }

  finish(): void {
    const rest = this.#pending.trim();
    this.#pending = '';
    if (rest) for (const s of splitSentences(rest)) this.#synthesize(s);
    void Promise.allSettled(this.#inflight).then(() => this.audio.markComplete());
  }

  cancel(): void {
    this.#cancelled = true;
    this.#abort.abort();
    this.audio.markComplete();
  }

  #synthesize(sentence: string): void {
    if (this.#cancelled || !/[\p{L}\p{N}]/u.test(sentence)) return;
    // the turn's first sentence is synthesized clause by clause: its first clause sounds sooner
    const clause =
      this.audio.pieces.length === 0 ? /^(.{8,}?[,;:])\s+(.*[\p{L}\p{N}].*)$/su.exec(sentence) : null;
    if (clause) {
      this.#synthesize(clause[1]!);
      this.#synthesize(clause[2]!);
      return;
    }
    const slot = this.audio.reserve();
    let live: { piece: Piece; mouth: LiveAudioMouth; buf: Int16Array; length: number } | undefined;
    // a streaming provider's audio plays as it arrives, with the audio-only mouth until it is done
    const onAudio = (pcm: Int16Array): void => {
      if (this.#cancelled) return;
      if (!live) {
        const mouth = new LiveAudioMouth();
        live = {
          piece: { pcm: pcm.subarray(0, 0), mouth, words: [], open: true },
          mouth,
          buf: pcm,
          length: 0,
        };
        this.audio.set(slot, live.piece);
      }
      if (live.length + pcm.length > live.buf.length) {
        const grown = new Int16Array(Math.max(2 * live.buf.length, live.length + pcm.length, 48_000));
        grown.set(live.buf.subarray(0, live.length));
        live.buf = grown;
      }
      live.buf.set(pcm, live.length);
      live.length += pcm.length;
      live.piece.pcm = live.buf.subarray(0, live.length);
      live.mouth.update(live.piece.pcm);
    };
    const job = this.#tts
      .synthesize({
        text: sentence,
        voiceId: this.#voiceId,
        speed: this.#speed,
        signal: this.#abort.signal,
        onAudio,
      })
      .then((raw) => {
        if (this.#cancelled) return;
        if (live) {
          const piece = live.piece;
          piece.pcm = raw.pcm;
          piece.words = raw.words;
          if (raw.phonemes.length === 0) live.mouth.update(raw.pcm, true);
          else piece.mouth = buildMouthTrack({ phonemes: raw.phonemes, totalSamples: raw.pcm.length });
          piece.open = false;
          // the audio-only mouth plays until the provider's timings are worked out
          void raw.later?.then((t) => {
            if (this.#cancelled || t.phonemes.length === 0) return;
            piece.mouth = buildMouthTrack({ phonemes: t.phonemes, totalSamples: piece.pcm.length });
            piece.words = t.words;
          });
          return;
        }
        const seg = slot === 0 ? trimLeadingSilence(raw) : raw; // the turn's lead-in is only latency
        this.audio.set(slot, {
          pcm: seg.pcm,
          mouth:
            seg.timing === 'none'
              ? analyzeAudioMouth(seg.pcm)
              : buildMouthTrack({ phonemes: seg.phonemes, totalSamples: seg.pcm.length }),
          words: seg.words,
        });
      })
      .catch((err: unknown) => {
        if (live) live.piece.open = false;
        if (!this.#cancelled) this.audio.fail(err instanceof Error ? err : new Error(String(err)));
      });
    this.#inflight.push(job);
  }
}
