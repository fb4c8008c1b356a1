// npm run bench:density [-- --sessions 1,2,4] [--profile] [--smoke]: N speaking sessions per engine
// process (see density.bench-run.ts). --profile adds a CPU profile of the densest level's engine.
import { parseArgs } from 'node:util';
import { runVitestBench } from '../lib/run-vitest-bench.mjs';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string' },
    profile: { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
  },
});
runVitestBench('density', {
  smoke: values.smoke,
  extraEnv: {
    ...(values.sessions ? { BENCH_SESSIONS: values.sessions } : {}),
    ...(values.profile ? { BENCH_PROFILE: '1' } : {}),
  },
});
