// npm run bench:video-import [-- --clip real|test|both] [--seconds 60] [--smoke]: how long a video
// avatar's import takes (target: a 60 s 1080p clip in at most 60 s on 2 cores). Two clips:
// - real: the shared real footage (../shared/fixtures/real-clips/latentsync-demo2.mp4 from the
//   repository's root: 1080×1920 HEVC, 25 fps) looped to 60 s, streams copied (testing/real-clip.ts,
//   cached in $TMPDIR/mouthpiece-clips);
// - test: test footage (testing/talking-clip.ts: the test portrait filmed speaking, 1280×720,
//   25 fps, H.264 + AAC), made first and cached.
// The import runs as the server runs it, in its own process. Prints each stage's time, the CPU
// seconds of the import's process and its ffmpeg children (Linux: /proc/self/stat's children's
// times), the clip-seconds per import-second and one JSON line per clip.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runVideoImport } from '@mouthpiece/engine/jobs';
import { makeTalkingClip, realClip } from '@mouthpiece/engine/testing';

const { values } = parseArgs({
  options: {
    clip: { type: 'string', default: 'both' },
    seconds: { type: 'string' },
    smoke: { type: 'boolean', default: false },
  },
});
const TARGET_S = 60;

/** CPU seconds of this process's waited-for children (the import process and its ffmpegs). */
function childCpuS() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100; // cutime + cstime, in clock ticks
  } catch {
    return NaN;
  }
}

async function bench(label, clip) {
  const packs = mkdtempSync(join(tmpdir(), 'mp-bench-import-'));
  const stages = new Map();
  const cpu0 = childCpuS();
  const started = performance.now();
  let stage = '';
  try {
    const { stats } = await runVideoImport(
      { id: 'bench', name: 'Bench', file: clip.file, ...(values.smoke ? { minSeconds: 5 } : {}) },
      packs,
      (s) => {
        if (s !== stage) stages.set(s, performance.now());
        stage = s;
      },
    );
    const totalS = (performance.now() - started) / 1000;
    const cpuS = childCpuS() - cpu0;
    const order = [...stages.entries()];
    const rows = order.map(([s, at], k) => [s, ((order[k + 1]?.[1] ?? performance.now()) - at) / 1000]);
    console.log(`\n${label}: video import of a ${stats.clipSeconds} s ${stats.clipSize} clip (${clip.note})`);
    console.log('stage      seconds');
    for (const [s, t] of rows) console.log(`${s.padEnd(10)} ${t.toFixed(1)}`);
    console.log(
      `total      ${totalS.toFixed(1)}  (${(stats.clipSeconds / totalS).toFixed(2)} clip-seconds per second; CPU ${cpuS.toFixed(1)} s; target for 60 s of 1080p: ≤ ${TARGET_S} s)`,
    );
    console.log(
      `tracked ${stats.trackedFraction}, ${stats.frames} frames (library stride ${stats.libraryStride}), base frames ${stats.baseFrames} (idle ${stats.baseIdle}, speech-time ${stats.baseSpeech}, baked ${stats.baseBaked}), ${stats.jumpsPerFrame} seamless jumps a frame (limit ${stats.jumpLimit}), mouth scale ${stats.mouthScale} (r ${stats.audioCorrelation}), load ${loadavg()}`,
    );
    console.log(
      JSON.stringify({
        bench: 'video-import',
        clip: label,
        smoke: values.smoke,
        clipSeconds: stats.clipSeconds,
        clipSize: stats.clipSize,
        importSeconds: Math.round(totalS * 10) / 10,
        cpuSeconds: Math.round(cpuS * 10) / 10,
        perClipSecond: Math.round((totalS / stats.clipSeconds) * 1000) / 1000,
        targetRatio: Math.round((((totalS / stats.clipSeconds) * 60) / TARGET_S) * 1000) / 1000,
        stages: Object.fromEntries(rows.map(([s, t]) => [s, Math.round(t * 10) / 10])),
      }),
    );
  } finally {
    rmSync(packs, { recursive: true, force: true });
  }
}

const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

if (values.clip === 'real' || values.clip === 'both') {
  const madeAt = Date.now();
  const file = realClip(values.smoke ? 'portrait' : 'minute');
  const note = `real footage, made in ${((Date.now() - madeAt) / 1000).toFixed(1)} s`;
  await bench('real', { file, note });
}
if (values.clip === 'test' || values.clip === 'both') {
  const seconds = values.smoke ? 20 : Number(values.seconds ?? 60);
  const size = values.smoke ? { width: 960, height: 540 } : { width: 1280, height: 720 };
  const madeAt = Date.now();
  const clip = await makeTalkingClip({ durationS: seconds, ...size });
  const note = `test footage, made in ${((Date.now() - madeAt) / 1000).toFixed(1)} s${clip.cached ? ', cached' : ''}`;
  await bench('test', { file: clip.file, note });
}
