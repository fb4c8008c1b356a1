// npm run bench:render [-- --frames 250] [--smoke]: per-frame cost of render, RGBA→I420 and VP8
// encode for each built-in avatar (measure.mjs), inside a test network namespace: the encode stage
// streams to a libwebrtc receiver in the same process, which needs a non-loopback interface.
import { runInTestNamespace } from '../lib/run-vitest-bench.mjs';

const r = runInTestNamespace(
  'render',
  [process.execPath, 'bench/render/measure.mjs', ...process.argv.slice(2)],
  process.env,
  {
    stdio: ['ignore', 'inherit', 'inherit'],
  },
);
process.exit(r.status ?? 1);
