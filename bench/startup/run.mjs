// npm run bench:startup [-- --smoke]: createSession → create → init-client → WHEP → first frame in Chromium.
import { runVitestBench } from '../lib/run-vitest-bench.mjs';

runVitestBench('startup');
