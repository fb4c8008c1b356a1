// npm run bench:audio-stream [-- --smoke]: streamed audio in (the audio WebSocket) at Chromium.
import { runVitestBench } from '../lib/run-vitest-bench.mjs';

runVitestBench('audio-stream');
