/**
 * Real espeak-ng speech for tests, as the engine reaches it: the speech router (voice id → the
 * voice book → espeak) over the espeak worker, no other provider configured. Not in the testing
 * index: only the engine's own tests load espeak.
 */
import { SpeechRouter } from '../speech/router.js';
import { createEspeak } from '../speech/tts.js';
import { VoiceBook } from '../speech/voice-book.js';

export function espeakSpeech(): SpeechRouter {
  return new SpeechRouter({
    voices: new VoiceBook(),
    espeak: createEspeak(),
    providers: {},
    align: () => Promise.reject(new Error('espeak voices need no alignment')),
  });
}
