// Makes a test clip of a talking head (testing/talking-clip.ts) from the built dist/ and copies it
// (and its ground-truth sidecar, OUT.json) to OUT:
//   npx tsc -b && node packages/engine/scripts/talking-clip.mjs OUT.mp4 [options]
// Options: --duration S  --size WxH  --fps N  --face-size N  --x N --y N  --background '#rrggbb'
//          --no-audio  --no-speech  --faces 2  --away F  --away-style slide|back  --tiny  --format mp4|webm|mov  --seed N
//          --no-cache
// The format defaults to OUT's extension. Clips are cached in $TMPDIR/mouthpiece-clips.
import { copyFileSync } from 'node:fs';
import { extname } from 'node:path';
import { makeTalkingClip } from '../dist/testing/talking-clip.js';

const USAGE =
  'usage: talking-clip.mjs OUT.mp4|.webm|.mov [--duration S] [--size WxH] [--fps N] [--face-size N] [--x N --y N] [--background #rrggbb] [--no-audio] [--no-speech] [--faces 2] [--away F] [--away-style slide|back] [--tiny] [--format F] [--seed N] [--no-cache]';
const args = process.argv.slice(2);
const out = args.shift();
if (!out || out.startsWith('--')) {
  console.error(USAGE);
  process.exit(2);
}
const opts = {};
const ext = extname(out).slice(1);
if (['mp4', 'webm', 'mov'].includes(ext)) opts.format = ext;
const num = (v, flag) => {
  const n = Number(v);
  if (v === undefined || !Number.isFinite(n)) {
    console.error(`${flag} needs a number\n${USAGE}`);
    process.exit(2);
  }
  return n;
};
while (args.length) {
  const flag = args.shift();
  switch (flag) {
    case '--duration':
      opts.durationS = num(args.shift(), flag);
      break;
    case '--size': {
      const [w, h] = String(args.shift()).split('x');
      opts.width = num(w, flag);
      opts.height = num(h, flag);
      break;
    }
    case '--fps':
      opts.fps = num(args.shift(), flag);
      break;
    case '--face-size':
      opts.faceSize = num(args.shift(), flag);
      break;
    case '--x':
      opts.x = num(args.shift(), flag);
      break;
    case '--y':
      opts.y = num(args.shift(), flag);
      break;
    case '--background':
      opts.background = args.shift();
      break;
    case '--no-audio':
      opts.audio = false;
      break;
    case '--no-speech':
      opts.speech = false;
      break;
    case '--faces':
      opts.faces = num(args.shift(), flag);
      break;
    case '--away':
      opts.awayFraction = num(args.shift(), flag);
      break;
    case '--away-style':
      opts.awayStyle = args.shift();
      break;
    case '--tiny':
      opts.tiny = true;
      break;
    case '--format':
      opts.format = args.shift();
      break;
    case '--seed':
      opts.seed = num(args.shift(), flag);
      break;
    case '--no-cache':
      opts.cache = false;
      break;
    default:
      console.error(`unknown option ${flag}\n${USAGE}`);
      process.exit(2);
  }
}
const started = performance.now();
const clip = await makeTalkingClip(opts);
copyFileSync(clip.file, out);
copyFileSync(clip.truthFile, `${out}.json`);
console.log(
  JSON.stringify({
    out,
    truth: `${out}.json`,
    cachedAs: clip.file,
    cached: clip.cached,
    madeInMs: clip.madeInMs,
    tookMs: Math.round(performance.now() - started),
    durationS: clip.durationS,
    frames: clip.frames,
    size: `${clip.width}x${clip.height}`,
    faces: clip.faces,
    away: clip.away,
  }),
);
process.exit(0); // the renderer's warm-up timers and the TTS worker are unref'd; exit now regardless
