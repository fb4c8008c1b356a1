// npm run bench:avsync [-- --smoke]: mouth opening vs audio onset in the received stream (Chromium).
import { runVitestBench } from '../lib/run-vitest-bench.mjs';

runVitestBench('avsync');
