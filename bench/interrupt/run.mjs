// npm run bench:interrupt [-- --smoke]: interrupt → silence and mouth at rest in Chromium.
import { runVitestBench } from '../lib/run-vitest-bench.mjs';

runVitestBench('interrupt');
