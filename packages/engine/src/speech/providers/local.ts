/**
 * Local neural voices (Piper, Kokoro, Matcha, Kitten through sherpa-onnx; docs/voices.md): one
 * child process per engine process (speech/local-process.ts) holds the models and speaks one
 * sentence at a time, off the engine's media thread. The engine warms it at start (each local
 * voice's model loaded), so a turn's first sentence does not wait for a model to load. A model
 * that fails while it runs aborts that child: its sentence fails the turn (`provider_error`), and
 * the next sentence starts a new child. sherpa-onnx gives no phoneme timings to Node, so the
 * router aligns espeak's reading to the audio, as for OpenAI voices.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { builtEntry } from '../../ipc/child-job.js';
import { RpcClient, type RpcResponse } from '../../ipc/rpc.js';
import { ProviderError, type SpeechProvider } from '../provider.js';
import { AbortedError } from '../synthesis-scheduler.js';
import { CodedError } from '@mouthpiece/protocol';

/** One sentence spoken by a local model: 16-bit mono PCM at the model's rate. */
export interface LocalSpeech {
  pcm: Int16Array;
  sampleRateHz: number;
}

/** The local-voice child's requests (speech/local-process.ts answers them). */
export type LocalWorkerMethods = {
  /** Speaks `text` with the model in folder `dir` (loaded on first use and kept). */
  synthesize(dir: string, text: string, speaker: number, speed: number): LocalSpeech;
};

/** The child ended while it spoke (most often: the model's graph failed and aborted it). */
export class LocalProcessEnded extends CodedError {
  static override code = 'ERR_LOCAL_PROCESS_ENDED';
  constructor(detail: string) {
    super(`the local voice process ended (${detail})`);
    this.name = 'LocalProcessEnded';
  }
}

interface Child {
  process: ChildProcess;
  rpc: RpcClient<LocalWorkerMethods>;
}

function spawnChild(onExit: (child: Child) => void): Child {
  const proc = fork(builtEntry('speech/local-process.js'), [], {
    serialization: 'advanced',
    execArgv: ['--no-warnings'],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  proc.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString('utf8')).slice(-2000);
  });
  const rpc = new RpcClient<LocalWorkerMethods>({
    post: (req) => proc.connected && proc.send(req),
    error: (_code, message) => new Error(message),
  });
  const child: Child = { process: proc, rpc };
  proc.on('message', (res: RpcResponse) => rpc.receive(res));
  proc.on('exit', (code, signal) => {
    // onnxruntime's own last line says why ("what(): … Gather node …")
    const why = stderr.trim().split('\n').filter(Boolean).at(-1) ?? '';
    rpc.close(new LocalProcessEnded(`${signal ?? code}${why ? `: ${why.slice(0, 300)}` : ''}`));
    onExit(child);
  });
  proc.on('error', (err) => rpc.close(err));
  return child;
}

export interface LocalProviderOptions {
  /** Model folders to load as soon as the provider is made (the voices file's local voices). */
  warm?: readonly string[];
}

export function localProvider(o: LocalProviderOptions = {}): SpeechProvider {
  let current: Child | undefined;
  const child = (): Child =>
    (current ??= spawnChild((c) => {
      if (current === c) current = undefined;
    }));
  if (o.warm?.length) {
    const c = child();
    // loads each model by speaking one word; a model that fails here fails again on its first turn
    for (const dir of o.warm) c.rpc.call('synthesize', [dir, 'Hello.', 0, 1]).catch(() => undefined);
  }
  return {
    name: 'local',
    concurrency: 1,
    async synthesize(req, sink) {
      const dir = req.voice.model;
      if (!dir) throw new ProviderError('local', 'bad_request', `local voice ${req.voice.id} has no model`);
      if (req.signal.aborted) throw new AbortedError();
      const speaker = Number(req.voice.providerVoice ?? 0);
      const speed = Math.min(2, Math.max(0.5, req.speed));
      let speech: LocalSpeech;
      try {
        speech = await child().rpc.call('synthesize', [dir, req.text, speaker, speed]);
      } catch (err) {
        throw new ProviderError(
          'local',
          'provider_error',
          `local: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
      // the child cannot stop mid-sentence: an interrupted sentence is dropped when it arrives
      if (req.signal.aborted) throw new AbortedError();
      if (speech.pcm.length === 0) throw new ProviderError('local', 'no_audio', 'local: no audio');
      sink.audio(speech.pcm, speech.sampleRateHz);
      return {};
    },
    close() {
      current?.process.kill();
      current = undefined;
      return Promise.resolve();
    },
  };
}
