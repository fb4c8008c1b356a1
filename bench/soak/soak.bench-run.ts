/**
 * Soak: N sessions speak without a pause for the whole run (a new say-text the moment a turn ends),
 * each with a real viewer — the first `BENCH_CHROMIUM` as SDK pages in one headless Chromium (video,
 * keep-alives, the SDK's own calls), the rest libwebrtc viewers in the receiver process — on one
 * engine process, as a long day of use would. Every minute (every 3 s in a smoke run) the server's
 * and each engine process's resident memory, open descriptors and threads are sampled, with the
 * turns finished and the frames the viewers decoded since the last sample.
 *
 * Reported: the samples (every tenth in the table, all in the JSON line), then per process the
 * figures at the start of the run (the median of the first five samples after the warm-up) and at
 * its end (the median of the last five), their change in %, and the least-squares slope of resident
 * memory per hour. A viewer that decoded nothing in an interval, an engine that was replaced, or a
 * turn that failed is counted and shown. Never fails on a figure: the run fails only when it cannot
 * run (no Chromium, a session not created).
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { it } from 'vitest';
import { launchBrowser, type TestBrowser } from '../../e2e/harness/browser.js';
import { startServer, type TestServer } from '../../e2e/harness/server.js';
import { fmt, report, row, smoke } from '../lib/measure.js';
import { processFigures, type ProcessFigures } from '../lib/process-tree.js';
import { Receiver } from '../lib/receiver.js';
import { growth, type Growth } from './growth.js';
import { pageCounters, startPageSpeaking } from './soak-page.js';

const MINUTES = smoke ? 0.25 : Number(process.env['BENCH_SOAK_MINUTES'] ?? '120');
const SESSIONS = Number(process.env['BENCH_SESSIONS'] ?? '4');
const PAGES = Math.min(SESSIONS, Number(process.env['BENCH_CHROMIUM'] ?? '1'));
const SAMPLE_MS = smoke ? 3000 : 60_000;
/** Start-up, packs and caches settle before the first sample counts. */
const WARMUP_MS = smoke ? 3000 : 120_000;
const LOG = process.env['BENCH_SOAK_LOG'];
const AVATARS = ['amara', 'jonas', 'mei'];
const TEXT =
  'Thanks for calling. Your parcel left our warehouse this morning and should reach you by Thursday ' +
  'afternoon. If you would like to change the address, tell me the new street and postcode. ';

interface Sample {
  minute: number;
  server: ProcessFigures;
  /** Engine processes by pid (a pid that changes is an engine that was replaced). */
  engines: Record<string, ProcessFigures>;
  turns: number;
  failedTurns: number;
  /** Frames decoded by every viewer since the last sample, and viewers that decoded none. */
  framesDecoded: number;
  stalledViewers: number;
}

function enginePids(server: TestServer): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(server.proc.pid), '-f', 'engine-main'], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when none
  }
}

const log = (line: string): void => {
  if (LOG) appendFileSync(LOG, `${line}\n`);
};

it('soaks', { timeout: MINUTES * 60_000 + WARMUP_MS + 300_000 }, async () => {
  if (LOG) writeFileSync(LOG, '');
  const server = await startServer({
    MOUTHPIECE_LOG_LEVEL: 'warn',
    MOUTHPIECE_ENGINE_PROCESSES: '1',
    MOUTHPIECE_SESSION_IDLE_TIMEOUT_MS: '300000',
    MOUTHPIECE_SESSION_MAX_DURATION_MS: String(MINUTES * 60_000 + WARMUP_MS + 600_000),
  });
  const receiver = new Receiver();
  let browser: TestBrowser | undefined;
  const pages: Page[] = [];
  const counts = { turns: 0, failed: 0 };
  const lastDecoded = new Map<string, number>();
  try {
    if (PAGES > 0) browser = await launchBrowser();
    const sessions: Array<{ sessionId: string; token: string }> = [];
    for (let i = 0; i < SESSIONS; i++) {
      const avatarId = AVATARS[i % AVATARS.length]!;
      const voiceId = i % 2 ? 'en-us-male' : 'en-us-female';
      if (i < PAGES) {
        const page = await browser!.sdkPage(server.url);
        const err = await page.evaluate(startPageSpeaking, {
          baseUrl: server.url,
          credential: server.secret,
          avatarId,
          voiceId,
          text: TEXT,
        });
        if (err) throw new Error(`SDK page ${i}: ${err}`);
        pages.push(page);
        continue;
      }
      const s = await server.createSession({ visualConfig: { avatarId }, voiceConfig: { id: voiceId } });
      const init = await server.initClient(s.sessionId, s.token);
      await receiver.connect(s.sessionId, init.whepUrl, { events: true });
      sessions.push(s);
    }
    const say = async (s: { sessionId: string; token: string }): Promise<void> => {
      const r = await server
        .api(`/v1/avatar-session/${s.sessionId}/say-text`, { token: s.token, json: { text: TEXT } })
        .catch(() => undefined);
      if (!r?.ok) counts.failed++;
    };
    receiver.onEvent((e) => {
      if (e.message.type !== 'speakingEnd') return;
      counts.turns++;
      const s = sessions.find((x) => x.sessionId === e.id);
      if (s) setTimeout(() => void say(s), 300);
    });
    for (const s of sessions) await say(s);

    const pageTurns = async () => {
      let turns = 0;
      let failed = 0;
      const decoded: number[] = [];
      for (const p of pages) {
        const c = await p.evaluate(pageCounters);
        turns += c.turns;
        failed += c.failed;
        decoded.push(c.framesDecoded);
      }
      return { turns, failed, decoded };
    };
    const decodedSince = async (): Promise<number[]> => {
      const viewers = [
        ...(await receiver.stats()).map((p) => [p.id, p.framesDecoded] as const),
        ...(await pageTurns()).decoded.map((d, i) => [`page${i}`, d] as const),
      ];
      const out = viewers.map(([id, d]) => d - (lastDecoded.get(id) ?? 0));
      for (const [id, d] of viewers) lastDecoded.set(id, d);
      return out;
    };

    await new Promise((r) => setTimeout(r, WARMUP_MS));
    await decodedSince();
    const samples: Sample[] = [];
    const t0 = performance.now();
    const n = Math.max(2, Math.round((MINUTES * 60_000) / SAMPLE_MS));
    for (let k = 0; k <= n; k++) {
      if (k > 0) await new Promise((r) => setTimeout(r, t0 + k * SAMPLE_MS - performance.now()));
      const engines: Record<string, ProcessFigures> = {};
      for (const pid of enginePids(server)) engines[pid] = processFigures(pid);
      const viewers = await decodedSince();
      const pt = await pageTurns();
      const sample: Sample = {
        minute: Number(((performance.now() - t0) / 60_000).toFixed(2)),
        server: processFigures(server.proc.pid!),
        engines,
        turns: counts.turns + pt.turns,
        failedTurns: counts.failed + pt.failed,
        framesDecoded: k === 0 ? 0 : viewers.reduce((a, b) => a + b, 0),
        stalledViewers: k === 0 ? 0 : viewers.filter((d) => d === 0).length,
      };
      samples.push(sample);
      log(JSON.stringify(sample));
    }
    writeReport(samples);
  } finally {
    receiver.close();
    await browser?.close();
    await server.stop();
  }
});

function writeReport(samples: Sample[]): void {
  const last = samples.at(-1)!;
  const engineIds = [...new Set(samples.flatMap((s) => Object.keys(s.engines)))];
  report(
    `soak benchmark: ${SESSIONS} sessions speaking without a pause for ${MINUTES} min (${PAGES} watched by SDK pages in Chromium, the rest by libwebrtc viewers), one engine process, 512x512@25, loopback in a network namespace; a sample every ${SAMPLE_MS / 1000} s after ${WARMUP_MS / 1000} s of warm-up`,
  );
  report(
    row('minute', ['srv MB', 'srv fd', 'srv thr', 'eng MB', 'eng fd', 'eng thr', 'turns', 'fps/view'], 8, 9),
  );
  const every = Math.max(1, Math.floor(samples.length / 12));
  for (const [i, s] of samples.entries()) {
    if (i % every !== 0 && s !== last) continue;
    const e = Object.values(s.engines);
    const sum = (f: (x: ProcessFigures) => number) => e.reduce((a, x) => a + f(x), 0);
    report(
      row(
        fmt(s.minute, 1),
        [
          fmt(s.server.rssMb, 1),
          s.server.fds,
          s.server.threads,
          fmt(
            sum((x) => x.rssMb),
            1,
          ),
          sum((x) => x.fds),
          sum((x) => x.threads),
          s.turns,
          fmt(s.framesDecoded / (SAMPLE_MS / 1000) / SESSIONS, 1),
        ],
        8,
        9,
      ),
    );
  }
  const series: Record<string, Growth> = {
    server: growth(samples.map((s) => ({ minute: s.minute, figures: s.server }))),
  };
  for (const id of engineIds)
    series[`engine ${id}`] = growth(
      samples.filter((s) => s.engines[id]).map((s) => ({ minute: s.minute, figures: s.engines[id]! })),
    );
  report(row('process', ['MB start', 'MB end', 'change', 'MB/hour', 'fd s→e', 'thr s→e'], 14, 10));
  for (const [name, g] of Object.entries(series))
    report(
      row(
        name,
        [
          fmt(g.rssStartMb, 1),
          fmt(g.rssEndMb, 1),
          `${g.rssChangePct >= 0 ? '+' : ''}${fmt(g.rssChangePct, 1)} %`,
          fmt(g.rssMbPerHour, 1),
          `${g.fdsStart}→${g.fdsEnd}`,
          `${g.threadsStart}→${g.threadsEnd}`,
        ],
        14,
        10,
      ),
    );
  const stalled = samples.reduce((a, s) => a + s.stalledViewers, 0);
  report(
    `turns finished ${last.turns}, failed say-text ${last.failedTurns}; viewer intervals with no decoded frame ${stalled} of ${(samples.length - 1) * SESSIONS}; engine processes seen ${engineIds.length}`,
  );
  report(
    JSON.stringify({
      bench: 'soak',
      smoke,
      minutes: MINUTES,
      sessions: SESSIONS,
      chromiumPages: PAGES,
      sampleSec: SAMPLE_MS / 1000,
      growth: series,
      turns: last.turns,
      failedTurns: last.failedTurns,
      stalledViewerIntervals: stalled,
      engineProcesses: engineIds.length,
      samples,
    }),
  );
}
