/**
 * The start-up check of local voices: each model loaded and made to speak in a short-lived child
 * process (built entry: run `npx tsc -b` first); a model that aborts its process is reported by
 * name with onnxruntime's reason.
 */
import { describe, expect, it } from 'vitest';
import { tinyVoices } from '../testing/tiny-voice.js';
import { LocalVoiceUnusable, probeLocalVoices } from './local-probe.js';
import type { VoiceEntry } from './voice-book.js';

const entry = (id: string, model: string, providerVoice?: string): VoiceEntry => ({
  id,
  provider: 'local',
  model,
  name: id,
  language: 'en-US',
  gender: 'neutral',
  ...(providerVoice ? { providerVoice } : {}),
});

describe('probeLocalVoices', () => {
  it('loads each local model and reports its rate and speakers; other providers are not touched', async () => {
    const v = tinyVoices();
    const results = await probeLocalVoices([
      entry('tiny', v.good),
      { id: 'oa', provider: 'openai', providerVoice: 'alloy', name: 'OA', language: 'en', gender: 'female' },
    ]);
    expect(results).toEqual([{ voiceId: 'tiny', sampleRateHz: 16_000, speakers: 1 }]);
  });

  it('a corrupt model (its process aborts) is refused naming the voice, the folder and why', async () => {
    const v = tinyVoices();
    const err = await probeLocalVoices([entry('tiny', v.good), entry('broken', v.corrupt)]).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LocalVoiceUnusable);
    expect(err).toMatchObject({ voiceId: 'broken', modelDir: v.corrupt });
    const message = (err as Error).message;
    expect(message).toContain(`local voice "broken": the model in ${v.corrupt} does not load: `);
    expect(message).toContain('Protobuf parsing failed');
    expect(message).toContain('the process aborted: SIGABRT');
  });

  it('a speaker the model does not have is refused', async () => {
    const v = tinyVoices();
    await expect(probeLocalVoices([entry('tiny', v.good, '3')])).rejects.toThrow(
      'speaker 3 is not in the model (it has 1)',
    );
  });
});
