/**
 * Where a session's speech comes from: text (synthesized sentence by sentence as it arrives, by
 * whichever voice provider speaks the session's voice — speech/router.ts) or an uploaded clip
 * (decoded and analysed off the media thread). Either way the result is a `TurnAudio`: PCM on the
 * 48 kHz media clock with its mouth track and word timings, which the player plays. Text is
 * synthesized through the session's lane of the process's fair synthesis scheduler.
 */
import type { AudioDecoder } from '../audio/decoder.js';
import { alignedMouthTrack } from '../lipsync/align-transcript.js';
import { analyzeAudioMouthAsync } from '../lipsync/audio-mouth.js';
import { splitSentences } from '../speech/sentences.js';
import type { Synthesizer } from '../speech/synthesis-scheduler.js';
import { TextTurnSynth, TurnAudio } from './turn-audio.js';

export interface SpeechSource {
  /** A text turn; its pieces are synthesized as `addText` delivers complete sentences. */
  textTurn(turnId: string): TextTurnSynth;
  /** An uploaded clip as a turn; rejects with AudioValidationError for a bad file. */
  audioTurn(turnId: string, bytes: Uint8Array): Promise<{ audio: TurnAudio; durationSec: number }>;
  /**
   * Gives an audio turn real mouth shapes from its transcript (espeak's reading of the text
   * aligned to the clip). Best effort: until it lands, or if the transcript does not fit the
   * audio, the audio-only model drives the mouth.
   */
  addTranscript(audio: TurnAudio, transcript: string): Promise<void>;
}

export function createSpeechSource(o: {
  tts: Synthesizer;
  decoder: AudioDecoder;
  voiceId: string;
  speed: number;
}): SpeechSource {
  return {
    textTurn: (turnId) => new TextTurnSynth(turnId, o.tts, o.voiceId, o.speed),

    async audioTurn(turnId, bytes) {
      const decoded = await o.decoder.decode(bytes);
      const mouth = await analyzeAudioMouthAsync(decoded.pcm); // yields between slices: the tick never waits
      const audio = new TurnAudio(turnId);
      audio.set(audio.reserve(), { pcm: decoded.pcm, mouth, words: [] });
      audio.markComplete();
      return { audio, durationSec: decoded.durationSec };
    },

    async addTranscript(audio, transcript) {
      const piece = audio.pieces[0];
      if (!piece) return;
      try {
        const reference = [];
        for (const sentence of splitSentences(transcript)) {
          const seg = await o.tts.synthesize({
            text: sentence,
            voiceId: o.voiceId,
            speed: 1,
            urgent: true,
            reading: true, // espeak's reading, whoever the voice's provider is
          });
          reference.push({ pcm: seg.pcm, phonemes: seg.phonemes });
        }
        if (reference.length === 0) return;
        const track = alignedMouthTrack(await o.decoder.align(piece.pcm, reference), piece.pcm.length);
        if (track) piece.mouth = track;
      } catch {
        // an improvement only: the audio model keeps driving the mouth
      }
    },
  };
}
