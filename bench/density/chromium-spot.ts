/**
 * The Chromium spot-check of `bench:density -- --render client` (client.bench-run.ts): the densest
 * clean client level again (the only level with `--smoke`), with a few of its sessions watched by
 * real SDK pages in `render: 'client'` — each in its own headless Chromium (e2e/harness/browser.ts
 * `sdkPage`, the SDK from `/sdk/mouthpiece.js`), as each viewer has its own machine — and the rest
 * by the receiver's libwebrtc viewers without video, as in the level itself. All sessions speak.
 *
 * Over the window, per page: animation frames received on the events channel and canvas frames
 * drawn, per second (a draw is one synchronous run of drawing calls on the SDK's canvas: one
 * renderer.draw(); the SDK draws the newest frame due at a refresh, so drawn ≤ received), the audio receiver's inbound-rtp stats
 * (packets/s, lost, concealed share, whether energy rose: heard), inbound video RTP (none expected),
 * the jitter-buffer delay the SDK's frame clock places frames behind (the clock's own offset is
 * not exposed by the SDK), and the CPU of that Chromium's process tree (% of a core, /proc).
 * A page is clean when it drew ≥ 20 frames/s, decoded ≥ 0.98 s of audio a second with no packet lost, was heard,
 * received no video RTP and did not fall back to video; one that is not marks the level not clean.
 * Never fails on a figure; a missing Chromium fails the run (the harness says what to install).
 */
import { execFileSync } from 'node:child_process';
import type { Page } from 'playwright-core';
import { launchBrowser, type TestBrowser } from '../../e2e/harness/browser.js';
import { startServer, type TestServer } from '../../e2e/harness/server.js';
import { Receiver, type PeerStats } from '../lib/receiver.js';
import { cpuMs, fmt, report, row, smoke } from '../lib/measure.js';
import { chromiumRoots, treeCpuMs, treeDeltaMs } from '../lib/process-tree.js';
import { installProbe, pageStats, startPageSession, type PageStats } from './chromium-spot-page.js';
import { startSpeaking } from './speech-source.js';

/** Pages watching sessions in the spot-check (`--chromium N`; 0: no spot-check). */
export const CHROMIUM_PAGES = Number(process.env['BENCH_CHROMIUM'] ?? '2');
const WARMUP_MS = smoke ? 2000 : 4000;
const WINDOW_MS = smoke ? 2000 : 10_000;
const MIN_DRAWN_FPS = 20;
/** Seconds of audio a page must decode a second (not concealed), as the receiver's viewers must. */
const MIN_AUDIO_SEC = 0.98;
const OPUS_HZ = 48_000;
const AVATARS = ['amara', 'jonas', 'mei'];

export interface PageFigures {
  avatarId: string;
  /** Animation frames received on the events channel per second, and canvas frames drawn. */
  animFps: number;
  drawnFps: number;
  audioPps: number;
  /** Audio decoded (not concealed) per second of the window. */
  audioSec: number;
  audioLost: number;
  /** Concealed samples, % of samples received in the window. */
  concealedPct: number;
  heard: boolean;
  /** Inbound video RTP entries and packets (client rendering offers no video: both 0). */
  videoEntries: number;
  videoPackets: number;
  /** Mean jitter-buffer delay of the audio emitted in the window, ms. */
  audioDelayMs: number;
  /** This page's Chromium (browser, renderer, GPU and utility processes), % of one core. */
  chromiumCpuPct: number;
  /** The SDK's renderFallback reason, if it ran as video instead. */
  fallback: string;
  ok: boolean;
}

export interface SpotCheck {
  n: number;
  pages: PageFigures[];
  /** The other sessions' receiver viewers (none when every session has a page). */
  viewers: { n: number; audioPpsMin: number; audioLost: number; animFpsMin: number; speaking: number };
  engineCpuPct: number;
  windowSec: number;
  ok: boolean;
}

/** One page's Chromium: its process tree's root, and the page once its session runs. */
interface Watcher {
  browser: TestBrowser;
  root: number;
  avatarId: string;
  page?: Page;
}

/** Starts a Chromium and finds its process tree (one at a time: the new root is the one not known). */
async function launchWatcher(avatarId: string): Promise<Watcher> {
  const known = chromiumRoots();
  const browser = await launchBrowser();
  const root = [...chromiumRoots()].find((pid) => !known.has(pid));
  if (root === undefined) {
    await browser.close();
    throw new Error('the Chromium just started is not in this process tree');
  }
  return { browser, root, avatarId };
}

/** The SDK page: the probe, then a client-rendered session that speaks. */
async function openPage(w: Watcher, server: TestServer, voiceId: string, text: string): Promise<void> {
  const page = await w.browser.sdkPage(server.url);
  w.page = page;
  await page.evaluate(installProbe);
  const err = await page.evaluate(startPageSession, {
    baseUrl: server.url,
    credential: server.secret,
    avatarId: w.avatarId,
    voiceId,
    text,
  });
  if (err) throw new Error(`spot-check page (${w.avatarId}): ${err}`);
}

async function closeWatcher(w: Watcher): Promise<void> {
  await w.page?.evaluate(() => (window as any).mp?.endSession()).catch(() => undefined);
  await w.browser.close();
}

/** The receiver-watched sessions, each speaking two long turns (speech-source.ts). */
async function startViewers(server: TestServer, receiver: Receiver, from: number, n: number, text: string) {
  const sessions = [];
  for (let i = from; i < n; i++) {
    const { sessionId, token } = await server.createSession({
      visualConfig: { avatarId: AVATARS[i % AVATARS.length] },
      voiceConfig: { id: i % 2 ? 'en-us-male' : 'en-us-female' },
    });
    const init = await server.initClient(sessionId, token);
    await receiver.connect(sessionId, init.whepUrl, { events: true, video: false });
    sessions.push({ sessionId, token });
  }
  for (const s of sessions) await startSpeaking(server, s, text);
}

/** A page's figures between two readings of its probe (rates on the page's clock). */
function pageFigures(w: Watcher, a: PageStats, b: PageStats, cpuMsUsed: number): PageFigures {
  const d = (k: keyof PageStats): number => (b[k] as number) - (a[k] as number);
  const sec = d('atMs') / 1000;
  const audioPps = d('packetsReceived') / sec;
  const f: PageFigures = {
    avatarId: w.avatarId,
    animFps: d('animFrames') / sec,
    drawnFps: d('drawn') / sec,
    audioPps,
    audioSec: (d('totalSamplesReceived') - d('concealedSamples')) / OPUS_HZ / sec,
    audioLost: d('packetsLost'),
    concealedPct: (d('concealedSamples') / Math.max(1, d('totalSamplesReceived'))) * 100,
    heard: d('totalAudioEnergy') > 0.01 * sec,
    videoEntries: b.videoEntries,
    videoPackets: b.videoPackets,
    audioDelayMs: (d('jitterBufferDelay') / Math.max(1, d('jitterBufferEmittedCount'))) * 1000,
    chromiumCpuPct: (cpuMsUsed / (sec * 1000)) * 100,
    fallback: b.fallback,
    ok: false,
  };
  f.ok =
    f.drawnFps >= MIN_DRAWN_FPS &&
    f.audioSec >= MIN_AUDIO_SEC &&
    f.audioLost === 0 &&
    f.heard &&
    f.videoPackets === 0 &&
    !f.fallback;
  return f;
}

function viewerFigures(before: PeerStats[], after: PeerStats[], sec: number): SpotCheck['viewers'] {
  const r = after.map((x) => {
    const y = before.find((p) => p.id === x.id)!;
    return {
      audioPps: (x.audioPackets - y.audioPackets) / sec,
      audioLost: x.audioLost - y.audioLost,
      animFps: (x.binaryMessages - y.binaryMessages) / sec,
      speaking: x.audioEnergy - y.audioEnergy > 0.01 * sec,
    };
  });
  return {
    n: r.length,
    audioPpsMin: r.length ? Math.min(...r.map((x) => x.audioPps)) : NaN,
    audioLost: r.reduce((s, x) => s + x.audioLost, 0),
    animFpsMin: r.length ? Math.min(...r.map((x) => x.animFps)) : NaN,
    speaking: r.filter((x) => x.speaking).length,
  };
}

/**
 * N client-rendered sessions speaking on one engine process, `pages` of them (at most N) watched
 * by SDK pages in their own Chromium, the rest by receiver viewers; the figures over the window.
 */
export async function chromiumSpotCheck(n: number, text: string, pages = CHROMIUM_PAGES): Promise<SpotCheck> {
  const k = Math.min(pages, n);
  const watchers: Watcher[] = [];
  // the browsers start while the server does (one at a time, to tell their process trees apart)
  const launching = (async () => {
    for (let i = 0; i < k; i++) watchers.push(await launchWatcher(AVATARS[i % AVATARS.length]!));
  })();
  let server: TestServer | undefined;
  const receiver = k < n ? new Receiver() : undefined;
  try {
    [server] = await Promise.all([
      startServer({
        MOUTHPIECE_LOG_LEVEL: 'warn',
        MOUTHPIECE_ENGINE_PROCESSES: '1',
        MOUTHPIECE_SESSION_IDLE_TIMEOUT_MS: '300000',
        MOUTHPIECE_MAX_SESSIONS: '200',
      }),
      launching,
    ]);
    const srv = server;
    // the viewers' sessions first: setting up many of them takes long enough for a page's speech,
    // started before them, to have ended by the window
    if (receiver) await startViewers(server, receiver, k, n, text);
    await Promise.all(watchers.map((w, i) => openPage(w, srv, i % 2 ? 'en-us-male' : 'en-us-female', text)));
    return await measureSpot(server, watchers, receiver, n);
  } finally {
    await launching.catch(() => undefined);
    await Promise.all(watchers.map(closeWatcher));
    receiver?.close();
    await server?.stop();
  }
}

/** The window, after the warm-up: every page's figures, the receiver viewers', the engine's CPU. */
async function measureSpot(
  server: TestServer,
  watchers: Watcher[],
  receiver: Receiver | undefined,
  n: number,
): Promise<SpotCheck> {
  const engine = Number(
    execFileSync('pgrep', ['-P', String(server.proc.pid), '-f', 'engine-main'], { encoding: 'utf8' })
      .trim()
      .split('\n')[0],
  );
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  const stats0 = await Promise.all(watchers.map((w) => w.page!.evaluate(pageStats)));
  const viewers0 = (await receiver?.stats()) ?? [];
  const cpu0 = watchers.map((w) => treeCpuMs(w.root));
  const engine0 = cpuMs(engine);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, WINDOW_MS));
  const stats1 = await Promise.all(watchers.map((w) => w.page!.evaluate(pageStats)));
  const viewers1 = (await receiver?.stats()) ?? [];
  const cpu1 = watchers.map((w) => treeCpuMs(w.root));
  const wallMs = performance.now() - t0;
  const figures = watchers.map((w, i) =>
    pageFigures(w, stats0[i]!, stats1[i]!, treeDeltaMs(cpu0[i]!, cpu1[i]!)),
  );
  return {
    n,
    pages: figures,
    viewers: viewerFigures(viewers0, viewers1, wallMs / 1000),
    engineCpuPct: ((cpuMs(engine) - engine0) / wallMs) * 100,
    windowSec: wallMs / 1000,
    ok: figures.every((f) => f.ok),
  };
}

/** The spot-check's rows, in the bench's table style, and a line on the other viewers. */
export function reportSpotCheck(s: SpotCheck | undefined): void {
  if (!s) {
    if (CHROMIUM_PAGES > 0) report('Chromium spot-check: not run (no clean client level)');
    return;
  }
  report(
    `Chromium spot-check at N=${s.n}: ${s.pages.length} sessions watched by SDK pages (render: 'client', each its own headless Chromium), ${s.viewers.n} by receiver viewers; ${fmt(s.windowSec, 0)} s window`,
  );
  const head = [
    'anim/s',
    'drawn/s',
    'aud/s',
    'aud s/s',
    'lost',
    'concl%',
    'heard',
    'vid rtp',
    'jb ms',
    'chrome%',
    'ok',
  ];
  report(row('page', head, 16, 9));
  s.pages.forEach((p, i) =>
    report(
      row(
        `${i + 1} ${p.avatarId}`,
        [
          fmt(p.animFps, 1),
          fmt(p.drawnFps, 1),
          fmt(p.audioPps, 1),
          fmt(p.audioSec, 3),
          fmt(p.audioLost),
          fmt(p.concealedPct, 2),
          p.heard ? 'yes' : 'no',
          fmt(p.videoPackets),
          fmt(p.audioDelayMs, 0),
          fmt(p.chromiumCpuPct, 0),
          p.ok ? 'yes' : p.fallback ? `no (${p.fallback})` : 'no',
        ],
        16,
        9,
      ),
    ),
  );
  const v = s.viewers;
  report(
    `spot-check level: engine ${fmt(s.engineCpuPct, 1)} %; receiver viewers ${v.n}: min ${fmt(v.audioPpsMin, 1)} audio packets/s, ${fmt(v.audioLost)} lost, min ${fmt(v.animFpsMin, 1)} animation frames/s, ${v.speaking}/${v.n} speaking; clean (every page >= ${MIN_DRAWN_FPS} drawn/s, >= ${MIN_AUDIO_SEC} s of audio decoded a second, none lost, heard, no video RTP): ${s.ok ? 'yes' : `no, so N=${s.n} counts as not clean`}`,
  );
}

/** The spot-check for the JSON summary line, numbers rounded. */
export function spotJson(s: SpotCheck): Record<string, unknown> {
  const round = (o: object): Record<string, unknown> =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'number' ? +v.toFixed(2) : v]));
  return {
    n: s.n,
    ok: s.ok,
    windowSec: +s.windowSec.toFixed(2),
    engineCpuPct: +s.engineCpuPct.toFixed(2),
    pages: s.pages.map(round),
    viewers: round(s.viewers),
  };
}
