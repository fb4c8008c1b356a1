/**
 * The process that plays local neural voices with sherpa-onnx (docs/voices.md, "Local neural
 * voices"). A model that does not load, or an ONNX graph that fails while it runs, aborts the whole
 * process (sherpa-onnx does not catch onnxruntime's exception), so models are loaded only here:
 *
 * - `local-process.js --probe DIR SPEAKER`: the start-up check (speech/local-probe.ts). Loads the
 *   model, checks the speaker id, speaks one word, prints `{sampleRateHz, speakers}` and exits 0.
 * - forked with an IPC channel (providers/local.ts): answers synthesis requests in order, one model
 *   per folder kept loaded; when it dies, only its current sentence fails.
 */
import { createRequire } from 'node:module';
import { serveRpc, type RpcHandlers, type RpcRequest } from '../ipc/rpc.js';
import { readLocalModel, type LocalModelFiles } from './local-model.js';
import type { LocalSpeech, LocalWorkerMethods } from './providers/local.js';

/** The part of sherpa-onnx-node's API used here. */
interface SherpaTts {
  readonly numSpeakers: number;
  readonly sampleRate: number;
  generate(req: { text: string; sid: number; speed: number }): { samples: Float32Array; sampleRate: number };
}
type SherpaModule = { OfflineTts: new (config: object) => SherpaTts };

function loadSherpa(): SherpaModule {
  try {
    return createRequire(import.meta.url)('sherpa-onnx-node') as SherpaModule;
  } catch (err) {
    // one line: the probe reports the child's last stderr line, and require's message goes on with its stack
    const why = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    throw new Error(
      `sherpa-onnx-node, an optional dependency, is not installed (run npm ci without --omit=optional): ${why}`,
    );
  }
}

function openModel(sherpa: SherpaModule, dir: string): SherpaTts {
  const files: LocalModelFiles = readLocalModel(dir).files;
  return new sherpa.OfflineTts({
    model: { ...files, numThreads: 1, debug: 0, provider: 'cpu' },
    maxNumSentences: 1,
  });
}

/** Float samples in [-1, 1] → 16-bit PCM. */
function toPcm16(samples: Float32Array): Int16Array {
  const pcm = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++)
    pcm[i] = Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 32767);
  return pcm;
}

function probe(dir: string, speaker: number): void {
  const tts = openModel(loadSherpa(), dir);
  if (speaker >= tts.numSpeakers)
    throw new Error(`speaker ${speaker} is not in the model (it has ${tts.numSpeakers})`);
  const audio = tts.generate({ text: 'Hello.', sid: speaker, speed: 1 });
  if (audio.samples.length === 0) throw new Error('the model spoke no audio for "Hello."');
  process.stdout.write(JSON.stringify({ sampleRateHz: audio.sampleRate, speakers: tts.numSpeakers }) + '\n');
}

function serve(): void {
  const sherpa = loadSherpa();
  const models = new Map<string, SherpaTts>();
  const handlers: RpcHandlers<LocalWorkerMethods> = {
    synthesize(dir, text, speaker, speed): LocalSpeech {
      let tts = models.get(dir);
      if (!tts) models.set(dir, (tts = openModel(sherpa, dir)));
      const audio = tts.generate({ text, sid: speaker, speed });
      return { pcm: toPcm16(audio.samples), sampleRateHz: audio.sampleRate };
    },
  };
  process.on('message', (req: RpcRequest<LocalWorkerMethods>) => {
    void serveRpc(handlers, req, (res) => {
      if (process.connected) process.send!(res);
    });
  });
  process.on('disconnect', () => process.exit(0));
}

const [mode, dir, speaker] = process.argv.slice(2);
if (mode === '--probe' && dir) {
  try {
    probe(dir, Number(speaker ?? 0));
    process.exit(0);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
} else if (process.send) {
  serve();
} else {
  console.error('local-process: run with --probe DIR SPEAKER, or forked by the local provider');
  process.exit(1);
}
