/**
 * A text turn synthesized sentence by sentence as its chunks arrive, into the turn's `TurnAudio`
 * stream (turn-audio.ts): one slot per sentence, in order; a streaming provider's audio plays as
 * it arrives with the audio-only mouth, and its better mouth track replaces it when it is worked out.
 */
import { analyzeAudioMouth } from '../lipsync/audio-mouth.js';
import { LiveAudioMouth } from '../lipsync/live-audio-mouth.js';
import { buildMouthTrack } from '../lipsync/mouth-track.js';
import type { Lookahead } from '../speech/lookahead.js';
import { splitSentences } from '../speech/sentences.js';
import type { Synthesizer } from '../speech/synthesis-scheduler.js';
import { trimLeadingSilence } from '../speech/trim.js';
import type { SpeechSegment } from '../speech/types.js';
import { TurnAudio, type PieceWriter } from './turn-audio.js';

/** A text turn as the engine session drives it (speech-source.ts makes them). */
export interface TextTurn {
  readonly audio: TurnAudio;
  addText(text: string): void;
  /** No more text: what is pending is synthesized and the stream ends after it. */
  finish(): void;
  /** Interrupt or end: requests still waiting are withdrawn and the stream is closed. */
  cancel(): void;
}

/** Synthesizes a text turn sentence by sentence as chunks arrive; `finish()` flushes the rest. */
export class TextTurnSynth implements TextTurn {
  readonly audio: TurnAudio;
  readonly #tts: Synthesizer;
  readonly #voiceId: string;
  readonly #speed: number;
  #pending = '';
  #finished = false;
  /** Withdraws this turn's requests still waiting for synthesis (interrupt, end). */
  readonly #abort = new AbortController();

  constructor(turnId: string, tts: Synthesizer, voiceId: string, speed: number, lookahead?: Lookahead) {
    this.audio = new TurnAudio(turnId, lookahead);
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
    if (this.#finished) return;
    this.#finished = true;
    const rest = this.#pending.trim();
    this.#pending = '';
    if (rest) for (const s of splitSentences(rest)) this.#synthesize(s);
    this.audio.end();
  }

  cancel(): void {
    this.#abort.abort();
    this.audio.close();
  }

  #synthesize(sentence: string): void {
    if (this.audio.closed || !/[\p{L}\p{N}]/u.test(sentence)) return;
    // the turn's first sentence is synthesized clause by clause: its first clause sounds sooner
    const clause = this.audio.slots === 0 ? /^(.{8,}?[,;:])\s+(.*[\p{L}\p{N}].*)$/su.exec(sentence) : null;
    if (clause) {
      this.#synthesize(clause[1]!);
      this.#synthesize(clause[2]!);
      return;
    }
    const writer = this.audio.reserve();
    let live: LiveAudioMouth | undefined;
    // a streaming provider's audio plays as it arrives, with the audio-only mouth until it is done
    const onAudio = (pcm: Int16Array): void => {
      if (this.audio.closed) return;
      live ??= new LiveAudioMouth();
      writer.stream(pcm, live);
      live.update(writer.streamed);
    };
    this.#tts
      .synthesize({
        text: sentence,
        voiceId: this.#voiceId,
        speed: this.#speed,
        signal: this.#abort.signal,
        onAudio,
      })
      .then((raw) => {
        if (this.audio.closed) return;
        if (live) finishStreamed(writer, live, raw);
        else {
          const seg = writer.index === 0 ? trimLeadingSilence(raw) : raw; // the turn's lead-in is only latency
          writer.set(
            seg.pcm,
            seg.timing === 'none'
              ? analyzeAudioMouth(seg.pcm)
              : buildMouthTrack({ phonemes: seg.phonemes, totalSamples: seg.pcm.length }),
            seg.words,
          );
        }
      })
      .catch((err: unknown) => {
        writer.finish();
        this.audio.fail(err instanceof Error ? err : new Error(String(err)));
      });
  }
}

/** A streamed sentence is complete: its final audio, and its mouth now or (`later`) as an event. */
function finishStreamed(writer: PieceWriter, live: LiveAudioMouth, raw: SpeechSegment): void {
  if (raw.phonemes.length === 0) live.update(raw.pcm, true);
  writer.finish({
    pcm: raw.pcm,
    words: raw.words,
    ...(raw.phonemes.length > 0
      ? { mouth: buildMouthTrack({ phonemes: raw.phonemes, totalSamples: raw.pcm.length }) }
      : {}),
  });
  // the audio-only mouth plays until the provider's timings are worked out
  void raw.later?.then((t) => {
    if (t.phonemes.length === 0) return;
    writer.setMouth(buildMouthTrack({ phonemes: t.phonemes, totalSamples: raw.pcm.length }), t.words);
  });
}
