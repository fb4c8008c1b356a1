// npm run bench:density [-- --sessions 1,2,4] [--profile] [--smoke] [--render client]: N speaking
// sessions per engine process (see density.bench-run.ts). --profile adds a CPU profile of the
// densest level's engine. --render client: viewers that draw the avatar themselves (no video m-line:
// audio + animation frames), beside the video path in the same run (client.bench-run.ts).
import { parseArgs } from 'node:util';
import { runVitestBench } from '../lib/run-vitest-bench.mjs';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string' },
    profile: { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
    render: { type: 'string', default: 'video' },
  },
});
runVitestBench('density', {
  smoke: values.smoke,
  extraEnv: {
    ...(values.sessions ? { BENCH_SESSIONS: values.sessions } : {}),
    ...(values.profile ? { BENCH_PROFILE: '1' } : {}),
    BENCH_RENDER: values.render === 'client' ? 'client' : 'video',
  },
});
