/**
 * OpenAI-compatible speech (OpenAI, and self-hosted Kokoro-FastAPI, Speaches, LocalAI,
 * openedai-speech): `POST {base}/audio/speech` with `{model, input, voice, response_format:
 * "pcm", speed}`; the body streams 24 kHz 16-bit mono PCM (a WAV stream is accepted too). No
 * timings: the router aligns espeak's reading to the audio for the mouth.
 */
import { ProviderError, type SpeechProvider } from '../provider.js';
import { OPENAI_DEFAULT_MODEL } from '../voice-book.js';
import { postStreaming } from './http.js';
import { PcmStream } from './pcm-stream.js';

export const OPENAI_PCM_RATE_HZ = 24_000;

export function openAiProvider(o: {
  url: string;
  apiKey?: string;
  defaultModel?: string;
  firstByteTimeoutMs: number;
  stallTimeoutMs: number;
  concurrency?: number;
}): SpeechProvider {
  const endpoint = new URL(`${o.url.replace(/\/+$/, '')}/audio/speech`);
  return {
    name: 'openai',
    concurrency: o.concurrency ?? 8,
    async synthesize(req, sink) {
      if (!req.voice.providerVoice)
        throw new ProviderError(
          'openai',
          'bad_request',
          `openai: voice ${req.voice.id} has no providerVoice`,
        );
      const pcm = new PcmStream('openai', { sampleRateHz: OPENAI_PCM_RATE_HZ, wav: 'auto' });
      await postStreaming(
        {
          provider: 'openai',
          url: endpoint,
          headers: {
            'content-type': 'application/json',
            accept: 'audio/pcm, audio/wav',
            ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
          },
          body: JSON.stringify({
            model: req.voice.model ?? o.defaultModel ?? OPENAI_DEFAULT_MODEL,
            input: req.text,
            voice: req.voice.providerVoice,
            response_format: 'pcm',
            // OpenAI takes 0.25–4
            speed: Math.min(4, Math.max(0.25, req.speed)),
          }),
          signal: req.signal,
          // PCM or WAV (or a server that does not say); never MP3, Opus, JSON…
          contentType: (t) =>
            /^(audio\/(pcm|wav|wave|x-wav|vnd\.wave|l16|raw|basic)|application\/octet-stream|binary\/octet-stream)$/.test(
              t,
            ),
          firstByteTimeoutMs: o.firstByteTimeoutMs,
          stallTimeoutMs: o.stallTimeoutMs,
        },
        (bytes) => {
          const samples = pcm.push(bytes);
          if (samples.length) sink.audio(samples, pcm.sampleRateHz);
        },
      );
      pcm.end();
      return {};
    },
  };
}
