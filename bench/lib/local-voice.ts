/**
 * A local neural voice's real-time factor: each text spoken by the engine's local provider (its
 * child process, the model loaded first), synthesis time / speech time, per sentence and overall.
 */
import { performance } from 'node:perf_hooks';
import { localProvider } from '../../packages/engine/dist/speech/providers/local.js';
import { quantile } from './measure.js';

export interface RealTimeFactor {
  p50: number;
  p95: number;
  overall: number;
  n: number;
}

export async function localRealTimeFactor(dir: string, texts: readonly string[]): Promise<RealTimeFactor> {
  const provider = localProvider();
  const voice = {
    id: 'rtf',
    name: 'rtf',
    language: 'en-US',
    gender: 'neutral',
    provider: 'local',
    espeakVoice: 'gmw/en-US',
    model: dir,
  } as const;
  const say = async (text: string): Promise<{ ms: number; speechMs: number }> => {
    let samples = 0;
    let rate = 1;
    const t0 = performance.now();
    await provider.synthesize(
      { text, voice, speed: 1, signal: new AbortController().signal },
      { audio: (pcm, hz) => ((samples += pcm.length), (rate = hz)) },
    );
    return { ms: performance.now() - t0, speechMs: (samples / rate) * 1000 };
  };
  try {
    await say('Hello.'); // the child starts and loads the model: not counted
    const runs = [];
    for (const t of texts) runs.push(await say(t));
    const ratios = runs.map((r) => r.ms / r.speechMs);
    const total = runs.reduce((a, r) => ({ ms: a.ms + r.ms, speechMs: a.speechMs + r.speechMs }), {
      ms: 0,
      speechMs: 0,
    });
    return {
      p50: quantile(ratios, 0.5),
      p95: quantile(ratios, 0.95),
      overall: total.ms / total.speechMs,
      n: runs.length,
    };
  } finally {
    await provider.close?.();
  }
}
