// npm run bench:latency [-- --smoke]: request → first audio / mouth opening / speakingStart in Chromium.
import { runVitestBench } from '../lib/run-vitest-bench.mjs';

runVitestBench('latency');
