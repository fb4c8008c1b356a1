// npm run bench:density [-- --sessions 1,2,4] [--profile] [--smoke] [--render client]: N speaking
// sessions per engine process (see density.bench-run.ts). --profile adds a CPU profile of the
// densest level's engine. --render client: viewers that draw the avatar themselves (no video m-line:
// audio + animation frames), beside the video path in the same run (client.bench-run.ts); with it,
// --chromium N (default 2, 0: off) SDK pages in Chromium watch N sessions of the densest clean
// level run again (chromium-spot.ts); --speech audio: sessions speak an uploaded recording instead
// of synthesising text (speech-source.ts).
import { parseArgs } from 'node:util';
import { runVitestBench } from '../lib/run-vitest-bench.mjs';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string' },
    profile: { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
    render: { type: 'string', default: 'video' },
    chromium: { type: 'string', default: '2' },
    speech: { type: 'string', default: 'espeak' },
  },
});
if (values.speech !== 'espeak' && values.speech !== 'audio') {
  console.error(
    `--speech is espeak (sessions synthesise text) or audio (they speak an upload), not "${values.speech}"`,
  );
  process.exit(2);
}
if (!/^\d+$/.test(values.chromium)) {
  console.error(
    `--chromium takes a whole number of pages (0 turns the spot-check off), not "${values.chromium}"`,
  );
  process.exit(2);
}
runVitestBench('density', {
  smoke: values.smoke,
  extraEnv: {
    ...(values.sessions ? { BENCH_SESSIONS: values.sessions } : {}),
    ...(values.profile ? { BENCH_PROFILE: '1' } : {}),
    BENCH_RENDER: values.render === 'client' ? 'client' : 'video',
    BENCH_CHROMIUM: values.chromium,
    BENCH_SPEECH: values.speech,
  },
});
