// npm run bench:soak [-- --minutes 120] [--sessions 4] [--chromium 1] [--smoke]: N sessions speaking
// without a pause for the whole run, each with a real viewer (--chromium of them SDK pages in
// Chromium, the rest libwebrtc viewers), while the server's and the engines' memory, descriptors
// and threads are sampled every minute (soak.bench-run.ts). Each sample is also appended, as it is
// taken, to the file printed at the start, so a long run can be watched (tail -f).
import { parseArgs } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runVitestBench } from '../lib/run-vitest-bench.mjs';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '120' },
    sessions: { type: 'string', default: '4' },
    chromium: { type: 'string', default: '1' },
    smoke: { type: 'boolean', default: false },
  },
});
for (const [flag, min] of [
  ['minutes', 1],
  ['sessions', 1],
  ['chromium', 0],
]) {
  const v = values[flag];
  if (!/^\d+$/.test(v) || Number(v) < min) {
    console.error(`--${flag} takes a whole number (at least ${min}), not "${v}"`);
    process.exit(2);
  }
}
if (Number(values.chromium) > Number(values.sessions)) {
  console.error(`--chromium (${values.chromium}) cannot exceed --sessions (${values.sessions})`);
  process.exit(2);
}
const log = join(tmpdir(), `mouthpiece-soak-${process.pid}.log`);
console.error(
  `soak: ${values.smoke ? 'smoke run' : `${values.minutes} min`}; samples as they come: tail -f ${log}`,
);
runVitestBench('soak', {
  smoke: values.smoke,
  extraEnv: {
    BENCH_SOAK_MINUTES: values.minutes,
    BENCH_SESSIONS: values.sessions,
    BENCH_CHROMIUM: values.chromium,
    BENCH_SOAK_LOG: log,
  },
});
