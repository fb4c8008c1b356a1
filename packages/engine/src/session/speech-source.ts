/**
 * Where a session's speech comes from: text (synthesized sentence by sentence as it arrives, by
 * whichever voice provider speaks the session's voice — speech/router.ts) or an uploaded clip
 * (decoded and analysed off the media thread). Either way the result is a `TurnAudio` stream: PCM
 * on the 48 kHz media clock with its mouth track and word timings, which the player plays. Text is
 * synthesized through the session's lane of the process's fair synthesis scheduler, whose
 * lookahead the text turns fill and playback drains.
 */
import type { AudioDecoder } from '../audio/decoder.js';
import type { AudioClip } from '../contract/types.js';
import { alignedMouthTrack } from '../lipsync/align-transcript.js';
import { analyzeAudioMouthAsync } from '../lipsync/audio-mouth.js';
import { splitSentences } from '../speech/sentences.js';
import type { SynthesisScheduler } from '../speech/synthesis-scheduler.js';
import { TextTurnSynth, type TextTurn } from './text-turn.js';
import { TurnAudio } from './turn-audio.js';

export interface SpeechSource {
  /** A text turn; its pieces are synthesized as `addText` delivers complete sentences. */
  textTurn(turnId: string): TextTurn;
  /** An uploaded clip as a turn; rejects with AudioValidationError for a bad file. */
  audioTurn(clip: AudioClip): Promise<{ audio: TurnAudio; durationSec: number }>;
  /**
   * Gives an audio turn real mouth shapes from its transcript (espeak's reading of the text
   * aligned to the clip), set on the stream as its late mouth track. Best effort: until it lands, or if
   * the transcript does not fit the audio, the audio-only model drives the mouth.
   */
  addTranscript(audio: TurnAudio, transcript: string): Promise<void>;
  /** The session ended: whatever it still had waiting for synthesis is withdrawn. */
  close(): void;
}

/** A session's speech in an engine process: its own lane of the process's synthesis scheduler. */
export function createSpeechSource(o: {
  sessionId: string;
  synthesis: SynthesisScheduler;
  decoder: AudioDecoder;
  voiceId: string;
  speed: number;
}): SpeechSource {
  const lane = o.synthesis.lane(o.sessionId);
  return {
    textTurn: (turnId) => new TextTurnSynth(turnId, lane, o.voiceId, o.speed, lane.lookahead),

    async audioTurn(clip) {
      const decoded = await o.decoder.decode(clip.audio);
      const mouth = await analyzeAudioMouthAsync(decoded.pcm); // yields between slices: the tick never waits
      const audio = new TurnAudio(clip.turnId);
      audio.append(decoded.pcm, mouth);
      audio.end();
      return { audio, durationSec: decoded.durationSec };
    },

    async addTranscript(audio, transcript) {
      const read = audio.read(0);
      if (read.kind !== 'piece') return;
      const pcm = read.piece.pcm;
      try {
        const reference = [];
        for (const sentence of splitSentences(transcript)) {
          const seg = await lane.synthesize({
            text: sentence,
            voiceId: o.voiceId,
            speed: 1,
            urgent: true,
            reading: true, // espeak's reading, whoever the voice's provider is
            signal: audio.signal, // an interrupted turn's reading is withdrawn
          });
          reference.push({ pcm: seg.pcm, phonemes: seg.phonemes });
        }
        if (reference.length === 0) return;
        const track = alignedMouthTrack(await o.decoder.align(pcm, reference, audio.signal), pcm.length);
        if (track) audio.setMouth(0, track);
      } catch {
        // an improvement only: the audio model keeps driving the mouth
      }
    },

    close: () => lane.close(),
  };
}
