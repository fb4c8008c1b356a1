// npm run bench:fairness [-- --smoke]: one session floods its engine with speech (10 × 5000
// characters) while another speaks short sentences; how long the quiet one waits for its speech
// to start, against the same without the flood, and the engine's memory (see fairness.bench-run.ts).
import { runVitestBench } from '../lib/run-vitest-bench.mjs';

runVitestBench('fairness');
