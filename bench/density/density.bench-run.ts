/**
 * Density: N sessions all speaking continuously, each with a connected libwebrtc viewer in a
 * separate receiver process, on one engine process (one core's worth, docs/design.md §9). For N = 1, 2,
 * 4, 6, … it reports engine CPU per session, memory per session, frames received (plus those the
 * engine held back unchanged) vs due, frames the engine skipped, viewer fps, and the control
 * plane's event-loop delay, over a window from one engine health ping to another; then the largest
 * N with no dropped frames and ≥ 24.5 frames a second per session, received or held. Stops at the first N that fails. Then the same for a
 * photo avatar (made from the test portrait, as an upload would be) and for a video avatar
 * (a 22 s talking clip of the test footage through the video import process, as an upload
 * would be; with --smoke a synthetic video pack, no import). Never fails on a figure.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { importPhotoAvatar } from '../../packages/engine/dist/avatar/photo-import.js';
import { portraitFixture } from '../../packages/engine/dist/testing/portrait-fixture.js';
import { writeSyntheticVideoPack } from '../../packages/engine/dist/testing/synthetic-video-pack.js';
import { runVideoImport } from '@mouthpiece/engine/jobs';
import { makeTalkingClip } from '@mouthpiece/engine/testing';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../../e2e/harness/browser.js';
import { startServer, type TestServer, readMetrics } from '../../e2e/harness/server.js';
import { summariseProfile, type ProfileSummary } from '../lib/cpuprofile.js';
import { Receiver } from '../lib/receiver.js';
import {
  cpuMs,
  fmt,
  report,
  row,
  rssMb,
  smoke,
  systemCpu,
  threadCpuMs,
  threadShares,
} from '../lib/measure.js';

const FPS = 25;
/** `--sessions 4,6` (BENCH_SESSIONS) measures just those; `--profile` also CPU-profiles the engine. */
const LEVELS = process.env['BENCH_SESSIONS']
  ? process.env['BENCH_SESSIONS'].split(',').map(Number)
  : smoke
    ? [1]
    : [1, 2, 4, 6, 8, 10, 12];
const PROFILE = process.env['BENCH_PROFILE'] === '1';
const WARMUP_MS = smoke ? 2000 : 4000;
const WINDOW_MS = smoke ? 2000 : 10_000;
const AVATARS = ['amara', 'jonas', 'mei'];
const TEXT =
  'Thanks for calling. I can help you with your order, your delivery and your account. ' +
  'Your parcel left our warehouse this morning and should reach you by Thursday afternoon. ' +
  'If you would like to change the address, tell me the new street and postcode, and I will ' +
  'check whether the courier can still pick it up. Papa bought a big bag of apples at the market. ' +
  'While we wait, may I ask how you heard about us? We are always glad to hear from new customers. ';

/** A metric's value in a /metrics text (its first series), or NaN. */
function valueOf(text: string, name: string): number {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

async function metric(server: TestServer, name: string): Promise<number> {
  return valueOf(await readMetrics(server.url), name);
}

/** The engine's frames made so far (handed to the encoder, and held back unchanged), as of its last health ping. */
async function framesMade(server: TestServer): Promise<{ sent: number; held: number; skipped: number }> {
  const text = await readMetrics(server.url);
  const [sent, held, skipped] = ['sent', 'held', 'skipped'].map((k) =>
    valueOf(text, `mouthpiece_engine_frames_${k}`),
  );
  return { sent: sent || 0, held: held || 0, skipped: skipped || 0 };
}

/**
 * Waits for the engine's next health ping (every 5 s; the frame counters in /metrics move then)
 * and answers them: a window from one ping to another counts held frames over the same span as
 * the frames its viewers received.
 */
async function nextPing(server: TestServer): Promise<{ sent: number; held: number; skipped: number }> {
  const was = await framesMade(server);
  for (const end = Date.now() + 15_000; Date.now() < end;) {
    await new Promise((r) => setTimeout(r, 50));
    const now = await framesMade(server);
    if (now.sent + now.held !== was.sent + was.held) return now;
  }
  throw new Error('the engine sent no health ping with new frame counts for 15 s');
}

interface Level {
  n: number;
  avatar: 'vector' | PackAvatar['kind'];
  engineCpuPct: number;
  cpuPerSessionPct: number;
  rssPerSessionMb: number;
  /** Frames received plus frames the engine held back unchanged, of those due at 25 fps. */
  receivedOfDue: number;
  /** Frames held back unchanged (session/session-frames.ts): the viewer shows the last one meanwhile. */
  heldFrames: number;
  skippedFrames: number;
  fpsMin: number;
  fpsAvg: number;
  audioPacketsPerSec: number;
  speaking: number;
  loopP99Ms: number;
  receiverCpuPct: number;
  /** The whole machine over the window: busy and stolen (by the hypervisor) CPU, % of all cores. */
  machineBusyPct: number;
  stealPct: number;
  /** Smallest frame width a viewer received (the encoder scales down when starved of CPU). */
  minWidth: number;
  /** Engine CPU by thread name, % of one core. */
  threads: Array<[string, number]>;
  profile?: ProfileSummary;
  /** Decoded fps of the one Chromium viewer, in the spot-check run. */
  chromiumFps?: number | undefined;
  ok: boolean;
}

/** An avatar in a folder of packs of its own: every session of a level shows it. */
interface PackAvatar {
  kind: 'photo' | 'video';
  dir: string;
  avatarId: string;
  /** Where the pack came from, for the report. */
  source: string;
}

/** A folder of packs holding one photo avatar, `photo`, made from the test portrait. */
async function photoPacks(): Promise<PackAvatar> {
  const dir = mkdtempSync(join(tmpdir(), 'mp-bench-photo-'));
  await importPhotoAvatar({ id: 'photo', name: 'Photo', image: await portraitFixture({ scale: 2 }) }, dir);
  return { kind: 'photo', dir, avatarId: 'photo', source: 'the test portrait' };
}

/**
 * A folder of packs holding one video avatar, `video`: the test footage (a 22 s talking clip,
 * cached between runs) through the import process, as an upload is (about 30–60 s here). In
 * smoke mode a synthetic pack at the output size instead (no clip, no import: the smoke only
 * checks the JSON line).
 */
async function videoPacks(): Promise<PackAvatar> {
  const dir = mkdtempSync(join(tmpdir(), 'mp-bench-video-'));
  if (smoke) {
    await writeSyntheticVideoPack(dir, { id: 'video', size: 512, baseFrames: 10 });
    return { kind: 'video', dir, avatarId: 'video', source: 'a synthetic pack (smoke)' };
  }
  const clip = await makeTalkingClip({ durationS: 22 });
  const t0 = performance.now();
  await runVideoImport({ id: 'video', name: 'Video', file: clip.file }, dir);
  const s = ((performance.now() - t0) / 1000).toFixed(0);
  return {
    kind: 'video',
    dir,
    avatarId: 'video',
    source: `a ${clip.durationS} s talking clip imported in ${s} s`,
  };
}

/** Levels up the list for one pack avatar, stopping at the first that fails; the pack is removed after. */
async function packLevels(make: () => Promise<PackAvatar>): Promise<{ pack: PackAvatar; levels: Level[] }> {
  const pack = await make();
  const levels: Level[] = [];
  try {
    for (const n of LEVELS) {
      const level = await measure(n, false, pack);
      levels.push(level);
      if (!level.ok) break;
    }
  } finally {
    rmSync(pack.dir, { recursive: true, force: true });
  }
  return { pack, levels };
}

/**
 * With `chromium`, session 0 is watched by headless Chromium instead (docs/design.md §9's
 * spot-check); with `pack`, every session shows that avatar.
 */
async function measure(n: number, chromium = false, pack?: PackAvatar): Promise<Level> {
  const profileDir = PROFILE ? mkdtempSync(join(tmpdir(), 'mp-prof-')) : undefined;
  const server = await startServer({
    ...(pack ? { MOUTHPIECE_AVATARS_DIR: pack.dir } : {}),
    MOUTHPIECE_LOG_LEVEL: 'warn',
    MOUTHPIECE_ENGINE_PROCESSES: '1',
    MOUTHPIECE_SESSION_IDLE_TIMEOUT_MS: '300000',
    ...(profileDir ? { MOUTHPIECE_ENGINE_NODE_FLAGS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {}),
  });
  const receiver = new Receiver();
  const browser = chromium ? await launchBrowser() : undefined;
  let page: Page | undefined;
  let engine = 0;
  let level: Level | undefined;
  try {
    engine = Number(
      execFileSync('pgrep', ['-P', String(server.proc.pid), '-f', 'engine-main'], { encoding: 'utf8' })
        .trim()
        .split('\n')[0],
    );
    const rssIdle = rssMb(engine);
    const sessions = [];
    for (let i = 0; i < n; i++) {
      const { sessionId, token } = await server.createSession({
        visualConfig: { avatarId: pack ? pack.avatarId : AVATARS[i % AVATARS.length] },
        voiceConfig: { id: i % 2 ? 'en-us-male' : 'en-us-female' },
      });
      const init = await server.initClient(sessionId, token);
      if (browser && i === 0) {
        page = await browser.newPage(server.url);
        await page.evaluate((whepUrl) => window.mpTest.connect({ whepUrl }), init.whepUrl);
        await page.evaluate(() =>
          window.mpTest.waitFor(async () => (await window.mpTest.stats()).framesDecoded > 0, 15000),
        );
      } else await receiver.connect(sessionId, init.whepUrl);
      sessions.push({ sessionId, token });
    }
    for (const s of sessions)
      for (let k = 0; k < 2; k++) {
        const r = await server.api(`/v1/avatar-session/${s.sessionId}/say-text`, {
          token: s.token,
          json: { text: TEXT, turnId: `t${k}` },
        });
        if (!r.ok) throw new Error(`say-text: ${r.status} ${await r.text()}`);
      }
    await new Promise((r) => setTimeout(r, WARMUP_MS));
    const made0 = await nextPing(server);
    await metric(server, 'mouthpiece_nodejs_eventloop_lag_p99_seconds'); // resets the window
    const before = await receiver.stats();
    const chrome0 = page ? (await page.evaluate(() => window.mpTest.stats())).framesDecoded : 0;
    const cpu0 = cpuMs(engine);
    const threads0 = threadCpuMs(engine);
    const sys0 = systemCpu();
    const rcpu0 = cpuMs(receiver.proc.pid!);
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, WINDOW_MS - 1000));
    const made1 = await nextPing(server);
    const after = await receiver.stats();
    const chrome1 = page ? (await page.evaluate(() => window.mpTest.stats())).framesDecoded : 0;
    const wallMs = performance.now() - t0;
    const engineCpuPct = ((cpuMs(engine) - cpu0) / wallMs) * 100;
    const threads = threadShares(threads0, threadCpuMs(engine), wallMs);
    const sys1 = systemCpu();
    const sysTotal = sys1.total - sys0.total;
    const receiverCpuPct = ((cpuMs(receiver.proc.pid!) - rcpu0) / wallMs) * 100;
    const loopP99Ms = (await metric(server, 'mouthpiece_nodejs_eventloop_lag_p99_seconds')) * 1000;
    const rss = rssMb(engine);
    const skipped = made1.skipped - made0.skipped;
    const held = made1.held - made0.held;
    const sec = wallMs / 1000;
    const fps = after.map((a) => {
      const b = before.find((x) => x.id === a.id)!;
      return (a.framesDecoded - b.framesDecoded) / sec;
    });
    const received = after.reduce((acc, a) => {
      const b = before.find((x) => x.id === a.id)!;
      return acc + a.framesReceived - b.framesReceived;
    }, 0);
    const audio = after.reduce((acc, a) => {
      const b = before.find((x) => x.id === a.id)!;
      return acc + a.audioPackets - b.audioPackets;
    }, 0);
    const speaking = after.filter((a) => {
      const b = before.find((x) => x.id === a.id)!;
      return a.audioEnergy - b.audioEnergy > 0.01 * sec;
    }).length;
    const chromiumFps = page ? (chrome1 - chrome0) / sec : undefined;
    if (chromiumFps !== undefined) fps.push(chromiumFps);
    const due = after.length * FPS * sec;
    const receivedOfDue = (received + held) / due;
    const fpsMin = Math.min(...fps);
    const fpsAvg = fps.reduce((a, b) => a + b, 0) / fps.length;
    level = {
      n,
      avatar: pack?.kind ?? 'vector',
      threads,
      engineCpuPct,
      cpuPerSessionPct: engineCpuPct / n,
      rssPerSessionMb: (rss - rssIdle) / n,
      receivedOfDue,
      heldFrames: held,
      skippedFrames: skipped,
      fpsMin,
      fpsAvg,
      audioPacketsPerSec: audio / n / sec,
      speaking,
      loopP99Ms,
      receiverCpuPct,
      machineBusyPct: ((sys1.busy - sys0.busy) / sysTotal) * 100,
      stealPct: ((sys1.steal - sys0.steal) / sysTotal) * 100,
      minWidth: Math.min(...after.map((a) => a.width)),
      chromiumFps,
      // a held frame is no drop (the picture did not change), so a vector or sprite viewer's fps
      // is below 25 by design: the frames received and held, per session, are what must keep up
      ok: skipped === 0 && receivedOfDue * FPS >= 24.5 && speaking === after.length,
    };
  } finally {
    await browser?.close();
    receiver.close();
    await server.stop();
  }
  if (profileDir) {
    const file = readdirSync(profileDir).find((f) => f.includes(`.${engine}.`));
    if (file) level.profile = summariseProfile(join(profileDir, file));
    rmSync(profileDir, { recursive: true, force: true });
  }
  return level;
}

// `--render client` runs client.bench-run.ts instead
it.skipIf(process.env['BENCH_RENDER'] === 'client')('measures', async () => {
  const levels: Level[] = [];
  for (const n of LEVELS) {
    const level = await measure(n);
    levels.push(level);
    if (!level.ok) break;
  }
  const clean = (ls: Level[]): number => Math.max(0, ...ls.filter((l) => l.ok).map((l) => l.n));
  const best = clean(levels);
  const photo = await packLevels(photoPacks);
  const video = await packLevels(videoPacks);
  const photoBest = clean(photo.levels);
  const videoBest = clean(video.levels);
  const all = [...levels, ...photo.levels, ...video.levels];
  // spot-check: the densest passing level again, one of its viewers a real browser
  const spot = best > 0 && !smoke ? await measure(best, true) : undefined;
  report(
    `density benchmark: N sessions speaking continuously, 512x512@${FPS}, one engine process, libwebrtc viewers in a separate process, a window of at least ${WINDOW_MS / 1000} s from one engine health ping (every 5 s) to another`,
  );
  report(
    row(
      'N',
      [
        'engine%',
        '%/sess',
        'MB/sess',
        '(rcv+held)/due',
        'held',
        'skipped',
        'fps min',
        'fps avg',
        'aud/s',
        'speak',
        'loop99',
        'rcvr%',
        'busy%',
        'steal%',
        'width',
        'ok',
      ],
      8,
    ),
  );
  for (const l of all)
    report(
      row(
        l.avatar === 'vector' ? String(l.n) : `${l.n} ${l.avatar}`,
        [
          fmt(l.engineCpuPct, 1),
          fmt(l.cpuPerSessionPct, 1),
          fmt(l.rssPerSessionMb, 1),
          fmt(l.receivedOfDue, 3),
          fmt(l.heldFrames),
          fmt(l.skippedFrames),
          fmt(l.fpsMin, 1),
          fmt(l.fpsAvg, 1),
          fmt(l.audioPacketsPerSec, 0),
          `${l.speaking}/${l.n}`,
          fmt(l.loopP99Ms, 1),
          fmt(l.receiverCpuPct, 0),
          fmt(l.machineBusyPct, 0),
          fmt(l.stealPct, 1),
          l.minWidth,
          l.ok ? 'yes' : 'no',
        ],
        8,
      ),
    );
  report(
    `largest N with no dropped frames and >= 24.5 frames a second per session (received, or held back unchanged), per engine process (one core): ${best}`,
  );
  report(`the same for a photo avatar (rows "N photo", from ${photo.pack.source}): ${photoBest}`);
  report(`the same for a video avatar (rows "N video", from ${video.pack.source}): ${videoBest}`);
  if (spot)
    report(
      `Chromium spot-check at N=${spot.n} (session 0 watched by headless Chromium): decoded ${fmt(spot.chromiumFps ?? NaN, 1)} fps; all viewers min ${fmt(spot.fpsMin, 1)} fps, ${fmt(spot.skippedFrames)} frames skipped, engine ${fmt(spot.engineCpuPct, 1)} %`,
    );
  const densest = levels.at(-1)!;
  report(
    `engine threads at N=${densest.n} (% of a core): ${densest.threads.map(([t, p]) => `${t} ${p.toFixed(1)}`).join(', ')}`,
  );
  if (densest.profile) {
    const { totalMs, modules, functions } = densest.profile;
    report(
      `engine main-thread CPU profile at N=${densest.n} (whole run, ${totalMs.toFixed(0)} ms of JS-thread samples)`,
    );
    for (const m of modules) report(`  ${((m.ms / totalMs) * 100).toFixed(1).padStart(5)} %  ${m.name}`);
    report('  top functions (self time):');
    for (const f of functions) report(`  ${((f.ms / totalMs) * 100).toFixed(1).padStart(5)} %  ${f.name}`);
  }
  report(
    JSON.stringify({
      bench: 'density',
      smoke,
      windowSec: WINDOW_MS / 1000,
      sessionsPerCore: best,
      photoSessionsPerCore: photoBest,
      videoSessionsPerCore: videoBest,
      videoPack: video.pack.source,
      chromiumSpotCheck: spot
        ? {
            n: spot.n,
            chromiumFps: +(spot.chromiumFps ?? NaN).toFixed(1),
            fpsMin: +spot.fpsMin.toFixed(1),
            skippedFrames: spot.skippedFrames,
          }
        : null,
      levels: all.map((l) => ({
        ...l,
        engineCpuPct: +l.engineCpuPct.toFixed(1),
        cpuPerSessionPct: +l.cpuPerSessionPct.toFixed(1),
        rssPerSessionMb: +l.rssPerSessionMb.toFixed(1),
        receivedOfDue: +l.receivedOfDue.toFixed(3),
        fpsMin: +l.fpsMin.toFixed(1),
        fpsAvg: +l.fpsAvg.toFixed(1),
        audioPacketsPerSec: Math.round(l.audioPacketsPerSec),
        loopP99Ms: +l.loopP99Ms.toFixed(1),
        receiverCpuPct: Math.round(l.receiverCpuPct),
        machineBusyPct: Math.round(l.machineBusyPct),
        stealPct: +l.stealPct.toFixed(1),
        threads: l.threads.map(([t, p]) => [t, +p.toFixed(1)]),
        profile: undefined,
      })),
    }),
  );
  expect(levels.length).toBeGreaterThan(0);
});
