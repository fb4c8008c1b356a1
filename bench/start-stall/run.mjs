// npm run bench:start-stall [-- --trials 5] [--size 512x512] [--smoke]: how long a watched session's
// video freezes while another session of the same engine process starts, with a freshly imported
// video avatar (the real fixture clip) against a vector avatar (see start-stall.bench-run.ts).
import { parseArgs } from 'node:util';
import { runVitestBench } from '../lib/run-vitest-bench.mjs';

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '5' },
    size: { type: 'string', default: '512x512' },
    smoke: { type: 'boolean', default: false },
  },
});
if (!/^[1-9]\d*$/.test(values.trials)) {
  console.error(`--trials takes a whole number of starts per avatar kind, not "${values.trials}"`);
  process.exit(2);
}
if (!/^\d{2,4}x\d{2,4}$/.test(values.size)) {
  console.error(
    `--size is the engine's output size like 512x512 (MOUTHPIECE_VIDEO_SIZE), not "${values.size}"`,
  );
  process.exit(2);
}
runVitestBench('start-stall', {
  smoke: values.smoke,
  extraEnv: { BENCH_TRIALS: values.trials, BENCH_VIDEO_SIZE: values.size },
});
