// npm run bench:video-import [-- --seconds 60] [--smoke]: how long a video avatar's import takes
// (DESIGN target: a 60 s 720p clip in at most 60 s on 2 cores). The clip is test footage
// (testing/talking-clip.ts: the test portrait filmed speaking, 1280×720, 25 fps, H.264 + AAC),
// made first and cached; the import runs as the server runs it, in its own process. Prints each
// stage's time, CPU of the import process, the clip-seconds per import-second and one JSON line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runVideoImport } from '@mouthpiece/engine/host';
import { makeTalkingClip } from '@mouthpiece/engine/testing';

const { values } = parseArgs({
  options: { seconds: { type: 'string' }, smoke: { type: 'boolean', default: false } },
});
const seconds = values.smoke ? 20 : Number(values.seconds ?? 60);
const size = values.smoke ? { width: 960, height: 540 } : { width: 1280, height: 720 };
const TARGET_S = 60;

const madeAt = Date.now();
const clip = await makeTalkingClip({ durationS: seconds, ...size });
const clipMs = Date.now() - madeAt;
const packs = mkdtempSync(join(tmpdir(), 'mp-bench-import-'));
const stages = new Map();
const started = performance.now();
let stage = '';
try {
  const { stats } = await runVideoImport({ id: 'bench', name: 'Bench', file: clip.file }, packs, (s) => {
    if (s !== stage) stages.set(s, performance.now());
    stage = s;
  });
  const totalS = (performance.now() - started) / 1000;
  const order = [...stages.entries()];
  const rows = order.map(([s, at], k) => [s, ((order[k + 1]?.[1] ?? performance.now()) - at) / 1000]);
  console.log(
    `video import of a ${clip.durationS.toFixed(1)} s ${clip.width}×${clip.height} clip (clip made in ${(clipMs / 1000).toFixed(1)} s${clip.cached ? ', cached' : ''})`,
  );
  console.log('stage      seconds');
  for (const [s, t] of rows) console.log(`${s.padEnd(10)} ${t.toFixed(1)}`);
  console.log(
    `total      ${totalS.toFixed(1)}  (${(clip.durationS / totalS).toFixed(2)} clip-seconds per second; target for 60 s of 720p: ≤ ${TARGET_S} s)`,
  );
  console.log(
    `tracked ${stats.trackedFraction}, library ${stats.frames} frames (stride ${stats.libraryStride}), base frames ${stats.baseFrames} (idle ${stats.baseIdle}, speech-time ${stats.baseSpeech}, baked ${stats.baseBaked}), ${stats.jumpsPerFrame} seamless jumps a frame (limit ${stats.jumpLimit}), mouth scale ${stats.mouthScale} (r ${stats.audioCorrelation})`,
  );
  console.log(
    JSON.stringify({
      bench: 'video-import',
      smoke: values.smoke,
      clipSeconds: clip.durationS,
      clipSize: `${clip.width}x${clip.height}`,
      importSeconds: Math.round(totalS * 10) / 10,
      perClipSecond: Math.round((totalS / clip.durationS) * 1000) / 1000,
      targetRatio: Math.round((((totalS / clip.durationS) * 60) / TARGET_S) * 1000) / 1000,
      stages: Object.fromEntries(rows.map(([s, t]) => [s, Math.round(t * 10) / 10])),
    }),
  );
} finally {
  rmSync(packs, { recursive: true, force: true });
}
