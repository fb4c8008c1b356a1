/**
 * Speech for the test host: silence whose length follows the text (a fixed time per character at
 * speed 1) or an upload's sniffed duration, with a closed mouth and one word per text chunk. It
 * goes through the same TurnAudio streams as synthesized speech, so the real session and player
 * play it.
 */
import { AudioValidationError } from '../audio/wav.js';
import { msToSamples } from '../clock/media-clock.js';
import { REST_MOUTH, Viseme } from '../face-state.js';
import type { MouthTrack } from '../lipsync/mouth-track.js';
import type { SpeechSource } from '../session/speech-source.js';
import type { TextTurn } from '../session/text-turn.js';
import { TurnAudio } from '../session/turn-audio.js';
import { sniffAudio } from './sniff-audio.js';

function restTrack(samples: number): MouthTrack {
  return {
    durationSamples: samples,
    at: () => ({ ...REST_MOUTH }),
    visemeAt: () => Viseme.X,
    emphasisAt: () => 0,
  };
}

function silence(ms: number): Int16Array {
  return new Int16Array(Math.round(msToSamples(ms)));
}

export function timedSpeech(o: { msPerCharacter: number; speed: number }): SpeechSource {
  return {
    textTurn(turnId): TextTurn {
      const audio = new TurnAudio(turnId);
      return {
        audio,
        addText(text) {
          const pcm = silence((text.length * o.msPerCharacter) / o.speed);
          audio.append(pcm, restTrack(pcm.length), [{ text, startSample: 0, endSample: pcm.length }]);
        },
        finish: () => audio.end(),
        cancel: () => audio.close(),
      };
    },
    audioTurn(clip) {
      const sniffed = sniffAudio(clip.audio, clip.declaredDurationSec);
      if (!sniffed.ok) return Promise.reject(new AudioValidationError(sniffed.reason));
      const audio = new TurnAudio(clip.turnId);
      const pcm = silence(sniffed.durationSec * 1000);
      audio.append(pcm, restTrack(pcm.length));
      audio.end();
      return Promise.resolve({ audio, durationSec: sniffed.durationSec });
    },
    addTranscript: () => Promise.resolve(),
    close: () => undefined,
  };
}
