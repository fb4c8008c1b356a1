// npm run bench:latency [-- --smoke] [-- --local-voice DIR]: request → first audio / mouth opening /
// speakingStart in Chromium; with --local-voice, a row for that local neural voice's model folder
// (docs/voices.md, "Local neural voices") and its real-time factor.
import { resolve } from 'node:path';
import { runVitestBench } from '../lib/run-vitest-bench.mjs';

const at = process.argv.indexOf('--local-voice');
const localVoice = at > 0 ? process.argv[at + 1] : undefined;
if (at > 0 && !localVoice) {
  console.error('bench:latency: --local-voice needs a model folder');
  process.exit(2);
}
runVitestBench('latency', { extraEnv: localVoice ? { BENCH_LOCAL_VOICE: resolve(localVoice) } : {} });
