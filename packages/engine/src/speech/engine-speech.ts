/**
 * An engine process's speech: the voice book, the configured providers behind the router, and the
 * fair scheduler every session synthesizes through. Built once the server's options arrive.
 */
import type { ProviderName, ProviderRequestStat, SpeechProvider } from './provider.js';
import { elevenLabsProvider } from './providers/elevenlabs.js';
import { fliteProvider } from './providers/flite.js';
import { localProvider } from './providers/local.js';
import { openAiProvider } from './providers/openai.js';
import { SpeechRouter, type SpeechRouterOptions } from './router.js';
import { SynthesisScheduler } from './synthesis-scheduler.js';
import { createEspeak, type EspeakSynth } from './tts.js';
import { VoiceBook, fliteAvailable, type SpeechConfig } from './voice-book.js';

export interface EngineSpeech {
  voices: VoiceBook;
  synthesis: SynthesisScheduler;
  close(): Promise<void>;
}

export function createEngineSpeech(o: {
  config: SpeechConfig;
  /** Only its aligner is used: the upload decoder's worker (audio/decoder.ts) serves it. */
  decoder: Pick<SpeechRouterOptions, 'align'>;
  espeak?: EspeakSynth;
  onRequest?: (stat: ProviderRequestStat) => void;
}): EngineSpeech {
  const c = o.config;
  const timeouts = { firstByteTimeoutMs: c.firstByteTimeoutMs, stallTimeoutMs: c.stallTimeoutMs };
  const providers: Partial<Record<ProviderName, SpeechProvider>> = {};
  if (fliteAvailable()) providers.flite = fliteProvider();
  const localModels = [
    ...new Set(c.voices.flatMap((v) => (v.provider === 'local' && v.model ? [v.model] : []))),
  ];
  if (localModels.length) providers.local = localProvider({ warm: localModels });
  if (c.elevenlabs)
    providers.elevenlabs = elevenLabsProvider({
      url: c.elevenlabs.url,
      apiKey: c.elevenlabs.apiKey,
      ...(c.elevenlabs.defaultModel ? { defaultModel: c.elevenlabs.defaultModel } : {}),
      ...timeouts,
    });
  if (c.openai)
    providers.openai = openAiProvider({
      url: c.openai.url,
      ...(c.openai.apiKey ? { apiKey: c.openai.apiKey } : {}),
      ...(c.openai.defaultModel ? { defaultModel: c.openai.defaultModel } : {}),
      ...timeouts,
    });
  const voices = new VoiceBook(c);
  const router = new SpeechRouter({
    voices,
    espeak: o.espeak ?? createEspeak(),
    providers,
    align: (pcm, reference, signal) => o.decoder.align(pcm, reference, signal),
    ...(o.onRequest ? { onRequest: o.onRequest } : {}),
  });
  const synthesis = new SynthesisScheduler(router);
  // a provider's speech's late readings take their turns on espeak like any session's sentence
  const readings = synthesis.lane('late readings');
  router.readVia(readings);
  return {
    voices,
    synthesis,
    close: () => {
      readings.close();
      return router.close();
    },
  };
}
