// npm run bench:encoder [-- --frames 250] [--smoke]: what the video encoder costs and what it
// delivers, per codec the engine's libwebrtc (@roamhq/wrtc) can send, at 512² and 25 fps: the
// encoder thread's CPU time per frame (from /proc), the bitrate and mean QP it chose, and the
// received picture's quality (PSNR of each decoded frame's luma against the frame sent, in the same
// process). Rows: VP8 (what the engine sends), VP9 and AV1; VP8 with a bitrate cap
// (x-google-max-bitrate, which libwebrtc reads from the answer); VP8 with every frame sent three
// times (the engine sends an unchanged frame again: what does encoding it cost?); VP8 at
// 1280×720. Content: the built-in vector avatar amara speaking (mouth every third frame, head
// moving every frame), a synthetic video avatar (bench/lib/video-pack.mjs), and real footage: the
// shared talking-head clip's first frames around the head (bench/video-real/real-clip.mjs), uncapped
// and capped. Runs measure.mjs inside a test network namespace (the loopback peers need a
// non-loopback interface).
import { runInTestNamespace } from '../lib/run-vitest-bench.mjs';

const r = runInTestNamespace(
  'encoder',
  [process.execPath, 'bench/encoder/measure.mjs', ...process.argv.slice(2)],
  process.env,
  {
    stdio: ['ignore', 'inherit', 'inherit'],
  },
);
process.exit(r.status ?? 1);
