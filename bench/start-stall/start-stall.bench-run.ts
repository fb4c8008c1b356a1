/**
 * Start stall: one engine process; session A (a vector avatar) watched by a libwebrtc viewer that
 * times every decoded frame; then session B starts on the same process and ends again, over and
 * over, alternately with a vector avatar and with a video avatar freshly imported from the real
 * fixture clip (../shared/fixtures/real-clips/latentsync-demo2.mp4 from the repository root,
 * imported once at the start; --smoke: a synthetic 512² pack, no import). Per kind: A's largest
 * gap between two received frames while B starts (from B's create sent until AFTER_MS after its
 * init-client answered), beside the same over a quiet window just before; how long B's create
 * took; and the engine's own count of media tick stalls (mouthpiece_engine_tick_stalls_total,
 * docs/operations.md) over the trial. Then, in this process, the longest the event loop is held
 * while the pack loads, the synchronous way against the session's (load-hold.ts), at the output
 * size and at a larger one (base frames scaled), and for a 300-frame 512² synthetic pack (118 MB;
 * smoke: the small pack only). Never fails on a figure.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'vitest';
import { writeSyntheticVideoPack } from '../../packages/engine/dist/testing/synthetic-video-pack.js';
import { runVideoImport } from '@mouthpiece/engine/jobs';
import { startServer, type TestServer, readMetrics } from '../../e2e/harness/server.js';
import { Receiver } from '../lib/receiver.js';
import { measureHold, type HoldRow } from './load-hold.js';
import { fmt, quantile, report, row, smoke } from '../lib/measure.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const CLIP = resolve(REPO, '../shared/fixtures/real-clips/latentsync-demo2.mp4');
const TRIALS = smoke ? 1 : Number(process.env['BENCH_TRIALS'] ?? '5');
const SIZE = process.env['BENCH_VIDEO_SIZE'] ?? '512x512';
const QUIET_MS = smoke ? 1000 : 2000;
const AFTER_MS = smoke ? 1000 : 2000;
/** The engine's counters reach /metrics at its health ping, every 5 s. */
const PING_MS = 5500;
const KINDS = ['vector', 'video'] as const;
type Kind = (typeof KINDS)[number];

interface Trial {
  kind: Kind;
  quietGapMs: number;
  startGapMs: number;
  /** Frames A received over the start window, per second. */
  fps: number;
  createMs: number;
  stalls: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function metric(server: TestServer, name: string): Promise<number> {
  const text = await readMetrics(server.url);
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

/** The video avatar `clip` in a folder of packs: the real clip imported, or (smoke) a synthetic pack. */
async function videoPack(dir: string): Promise<string> {
  if (smoke) {
    await writeSyntheticVideoPack(dir, { id: 'clip', size: 512, baseFrames: 10 });
    return 'a synthetic 512² pack (smoke)';
  }
  if (!existsSync(CLIP))
    throw new Error(
      `the real fixture clip is not at ${CLIP} (../shared/fixtures/real-clips/latentsync-demo2.mp4 from the repository root): put it there, or run with --smoke`,
    );
  const t0 = performance.now();
  await runVideoImport({ id: 'clip', name: 'Clip', file: CLIP }, dir);
  return `latentsync-demo2.mp4 imported in ${((performance.now() - t0) / 1000).toFixed(0)} s`;
}

function packFigures(dir: string): { baseFrames: number; crops: number; mb: number } {
  const index = JSON.parse(readFileSync(join(dir, 'clip', 'video.json'), 'utf8')) as {
    base: { frames: number };
    library: { frames: number };
  };
  const bytes = ['base.i420', 'mouths.i420'].reduce((a, f) => a + statSync(join(dir, 'clip', f)).size, 0);
  return { baseFrames: index.base.frames, crops: index.library.frames, mb: +(bytes / 1e6).toFixed(1) };
}

/** B starts (kind) while A is watched, then ends; A's frame gaps before and during the start. */
async function trial(server: TestServer, receiver: Receiver, watched: string, kind: Kind): Promise<Trial> {
  await receiver.frameGap(watched, true);
  await sleep(QUIET_MS);
  const quiet = await receiver.frameGap(watched, true);
  const stalls0 = await metric(server, 'mouthpiece_engine_tick_stalls_total');
  const t0 = performance.now();
  const b = await server.createSession({
    visualConfig: { avatarId: kind === 'video' ? 'clip' : 'jonas' },
    voiceConfig: { id: 'en-us-male' },
  });
  const createMs = performance.now() - t0;
  await server.initClient(b.sessionId, b.token);
  await sleep(AFTER_MS);
  const start = await receiver.frameGap(watched, true);
  const windowMs = performance.now() - t0;
  const end = await server.api(`/v1/avatar-session/${b.sessionId}/end`, { token: b.token });
  if (!end.ok) throw new Error(`end: ${end.status} ${await end.text()}`);
  await sleep(PING_MS);
  return {
    kind,
    quietGapMs: quiet.maxGapMs,
    startGapMs: start.maxGapMs,
    fps: (start.frames / windowMs) * 1000,
    createMs,
    stalls: (await metric(server, 'mouthpiece_engine_tick_stalls_total')) - stalls0,
  };
}

async function runTrials(packs: string): Promise<Trial[]> {
  const server = await startServer({
    MOUTHPIECE_AVATARS_DIR: packs,
    MOUTHPIECE_ENGINE_PROCESSES: '1',
    MOUTHPIECE_LOG_LEVEL: 'warn',
    MOUTHPIECE_VIDEO_SIZE: SIZE,
    MOUTHPIECE_SESSION_IDLE_TIMEOUT_MS: '600000',
  });
  const receiver = new Receiver();
  const trials: Trial[] = [];
  try {
    const a = await server.createSession({
      visualConfig: { avatarId: 'amara' },
      voiceConfig: { id: 'en-us-female' },
    });
    const init = await server.initClient(a.sessionId, a.token);
    await receiver.connect(a.sessionId, init.whepUrl, { gaps: true });
    await sleep(PING_MS); // warmed up, and the stall counter is on /metrics
    for (let k = 0; k < TRIALS; k++)
      for (const kind of k % 2 ? [...KINDS].reverse() : KINDS)
        trials.push(await trial(server, receiver, a.sessionId, kind));
  } finally {
    receiver.close();
    await server.stop();
  }
  return trials;
}

/** Event-loop holds while packs load: the clip at two sizes, and (full runs) a 300-frame pack. */
async function holds(packs: string, source: string): Promise<HoldRow[]> {
  const reps = smoke ? 1 : 5;
  const rows = [
    await measureHold(join(packs, 'clip'), source, SIZE, reps),
    await measureHold(join(packs, 'clip'), source, '768x768', reps),
  ];
  if (!smoke) {
    await writeSyntheticVideoPack(packs, { id: 'big', size: 512, baseFrames: 300 });
    rows.push(await measureHold(join(packs, 'big'), 'synthetic, 300 base frames of 512²', SIZE, reps));
  }
  return rows;
}

function reportHolds(rows: HoldRow[]): void {
  report('');
  report(
    'the event loop held while a pack loads, in one process (ms; median and max; idle: a 50 ms wait, the floor):',
  );
  report(
    row('pack', ['size', 'sync p50', 'sync max', 'async p50', 'async max', 'idle p50', 'idle max'], 40, 11),
  );
  for (const r of rows)
    report(
      row(
        r.pack.slice(0, 38),
        [
          r.size,
          fmt(r.syncP50Ms, 1),
          fmt(r.syncMaxMs, 1),
          fmt(r.asyncP50Ms, 1),
          fmt(r.asyncMaxMs, 1),
          fmt(r.idleP50Ms, 1),
          fmt(r.idleMaxMs, 1),
        ],
        40,
        11,
      ),
    );
}

function summary(trials: Trial[], kind: Kind): Record<string, number> {
  const t = trials.filter((x) => x.kind === kind);
  const r1 = (x: number): number => +x.toFixed(1);
  const col = (k: keyof Trial): number[] => t.map((x) => x[k] as number);
  return {
    startGapP50Ms: r1(quantile(col('startGapMs'), 0.5)),
    startGapMaxMs: r1(Math.max(...col('startGapMs'))),
    quietGapMaxMs: r1(Math.max(...col('quietGapMs'))),
    createP50Ms: r1(quantile(col('createMs'), 0.5)),
    fpsMin: r1(Math.min(...col('fps'))),
    stalls: col('stalls').reduce((a, b) => a + b, 0),
  };
}

it('measures', async () => {
  const packs = mkdtempSync(join(tmpdir(), 'mp-bench-start-stall-'));
  try {
    const source = await videoPack(packs);
    const pack = packFigures(packs);
    const trials = await runTrials(packs);
    const by = Object.fromEntries(KINDS.map((k) => [k, summary(trials, k)]));
    const hold = await holds(packs, smoke ? 'synthetic (smoke)' : 'latentsync-demo2 imported');
    report(
      `start-stall benchmark: one engine process at ${SIZE}; session A (vector) watched by a libwebrtc viewer; ` +
        `session B started and ended ${TRIALS}× per kind. Video pack: ${source}, ` +
        `${pack.baseFrames} base frames, ${pack.crops} crops, ${pack.mb} MB raw`,
    );
    report(
      row('B started with', ['gap p50', 'gap max', 'quiet max', 'create', 'A fps min', 'stalls'], 24, 11),
    );
    for (const k of KINDS) {
      const s = by[k]!;
      report(
        row(
          `${k} avatar`,
          [
            fmt(s['startGapP50Ms']!),
            fmt(s['startGapMaxMs']!),
            fmt(s['quietGapMaxMs']!),
            fmt(s['createP50Ms']!),
            fmt(s['fpsMin']!, 1),
            fmt(s['stalls']!),
          ],
          24,
          11,
        ),
      );
    }
    report(
      "(gap: A's largest time between two received frames while B starts, ms; quiet: the same over " +
        `${QUIET_MS} ms before; create: B's create answered, ms; stalls: the engine's media ticks ≥ 40 ms late; want gap < 60 ms)`,
    );
    reportHolds(hold);
    report(
      JSON.stringify({
        bench: 'start-stall',
        smoke,
        size: SIZE,
        trials: TRIALS,
        pack: { source, ...pack },
        ...by,
        hold,
      }),
    );
  } finally {
    rmSync(packs, { recursive: true, force: true });
  }
});
