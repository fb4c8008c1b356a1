// npm run bench:video-download [-- --smoke]: a video avatar's download for browsers (docs/design.md
// §13.6): the pack's raw frames against their VP9 files (bytes, encode time), how far the decoded
// frames are from the raw ones (ffmpeg's decoding: MAD, PSNR; the engine's composed frames from
// either), and Chromium's load of the VP9 files through the SDK's pack loader (WebCodecs). The pack
// is the test footage's (60 s of 720p imported; --smoke: the synthetic 256² pack), or BENCH_PACK=DIR.
import { runVitestBench } from '../lib/run-vitest-bench.mjs';

runVitestBench('video-download');
