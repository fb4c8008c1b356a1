/**
 * ElevenLabs: `POST {base}/v1/text-to-speech/{voice_id}/stream/with-timestamps?output_format=pcm_24000`
 * with `xi-api-key`. The body streams JSON objects (one a line; back to back is read too), each
 * with `audio_base64` (16-bit mono PCM) and the `alignment` of the characters it covers (start and
 * end in seconds from the start of the speech). The characters come back as the provider's timings; the router places
 * espeak's phonemes of the same text on them.
 */
import { StringDecoder } from 'node:string_decoder';
import { ProviderError, type CharacterTiming, type SpeechProvider } from '../provider.js';
import { ELEVENLABS_DEFAULT_MODEL } from '../voice-book.js';
import { postStreaming } from './http.js';
import { JsonObjectSplitter } from './json-objects.js';
import { PcmStream } from './pcm-stream.js';

export const ELEVENLABS_PCM_RATE_HZ = 24_000;
/** ElevenLabs' `voice_settings.speed` range. */
export const ELEVENLABS_SPEED = { min: 0.7, max: 1.2 };

interface Alignment {
  characters?: unknown;
  character_start_times_seconds?: unknown;
  character_end_times_seconds?: unknown;
}

export function elevenLabsProvider(o: {
  url: string;
  apiKey: string;
  defaultModel?: string;
  firstByteTimeoutMs: number;
  stallTimeoutMs: number;
  concurrency?: number;
}): SpeechProvider {
  const base = o.url.replace(/\/+$/, '');
  return {
    name: 'elevenlabs',
    concurrency: o.concurrency ?? 8,
    async synthesize(req, sink) {
      const voiceId = req.voice.providerVoice ?? req.voice.id;
      const url = new URL(
        `${base}/v1/text-to-speech/${encodeURIComponent(voiceId)}/stream/with-timestamps?output_format=pcm_${ELEVENLABS_PCM_RATE_HZ}`,
      );
      const pcm = new PcmStream('elevenlabs', { sampleRateHz: ELEVENLABS_PCM_RATE_HZ, wav: 'never' });
      const characters: CharacterTiming[] = [];
      const objects = new JsonObjectSplitter();
      const utf8 = new StringDecoder('utf8');
      let lastEnd = 0;
      const take = (json: string): void => {
        if (!json.trim()) return;
        let m: { audio_base64?: unknown; alignment?: Alignment | null };
        try {
          m = JSON.parse(json) as typeof m;
        } catch {
          throw new ProviderError('elevenlabs', 'bad_audio', 'elevenlabs: a streamed line is not JSON');
        }
        if (
          typeof m !== 'object' ||
          m === null ||
          (m.audio_base64 !== undefined && typeof m.audio_base64 !== 'string')
        )
          throw new ProviderError(
            'elevenlabs',
            'bad_audio',
            'elevenlabs: a streamed object has no audio_base64',
          );
        // samples before this object: where its alignment begins if it counts from its own start
        const before = pcm.samples / pcm.sampleRateHz;
        if (typeof m.audio_base64 === 'string' && m.audio_base64) {
          const samples = pcm.push(Buffer.from(m.audio_base64, 'base64'));
          if (samples.length) sink.audio(samples, pcm.sampleRateHz);
        }
        const a = m.alignment;
        if (!a || !Array.isArray(a.characters)) return;
        const starts = a.character_start_times_seconds;
        const ends = a.character_end_times_seconds;
        if (!Array.isArray(starts) || !Array.isArray(ends)) return;
        const first = Number(starts[0]);
        const offset = characters.length > 0 && first + 0.02 < lastEnd ? before : 0;
        a.characters.forEach((c, i) => {
          const s = Number(starts[i]);
          const e = Number(ends[i]);
          if (typeof c !== 'string' || !Number.isFinite(s) || !Number.isFinite(e)) return;
          characters.push({ char: c, startSec: s + offset, endSec: e + offset });
          lastEnd = Math.max(lastEnd, e + offset);
        });
      };
      await postStreaming(
        {
          provider: 'elevenlabs',
          url,
          headers: { 'content-type': 'application/json', accept: 'application/json', 'xi-api-key': o.apiKey },
          body: JSON.stringify({
            text: req.text,
            model_id: req.voice.model ?? o.defaultModel ?? ELEVENLABS_DEFAULT_MODEL,
            // only when asked: a partial voice_settings would replace the voice's own settings
            ...(req.speed !== 1
              ? {
                  voice_settings: {
                    speed: Math.min(ELEVENLABS_SPEED.max, Math.max(ELEVENLABS_SPEED.min, req.speed)),
                  },
                }
              : {}),
          }),
          signal: req.signal,
          contentType: (t) => /json|text\/plain|event-stream|octet-stream/.test(t),
          firstByteTimeoutMs: o.firstByteTimeoutMs,
          stallTimeoutMs: o.stallTimeoutMs,
        },
        (bytes) => {
          for (const json of objects.push(utf8.write(bytes))) take(json);
        },
      );
      for (const json of objects.push(utf8.end())) take(json);
      take(objects.end());
      pcm.end();
      return { characters };
    },
  };
}
