/**
 * Media figures at a real browser (loopback, inside a network namespace): say-text → first
 * received audio above the floor and → speakingStart; interrupt → silence; engine CPU and
 * memory for one speaking stream. Prints a table and one JSON line. Never fails on a figure.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { launchBrowser } from '../../e2e/harness/browser.js';
import { startServer } from '../../e2e/harness/server.js';

const smoke = process.env['BENCH_SMOKE'] === '1';
const ROUNDS = smoke ? 2 : 15;
const FLOOR = 0.02;

const q = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
};

function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, USER_HZ = 100
}
const rssMb = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

it('measures', async () => {
  const server = await startServer({ MOUTHPIECE_LOG_LEVEL: 'warn' });
  const browser = await launchBrowser();
  try {
    const engine = Number(
      execFileSync('pgrep', ['-P', String(server.proc.pid), '-f', 'engine-main'], { encoding: 'utf8' })
        .trim()
        .split('\n')[0],
    );
    const rssIdle = rssMb(engine);
    const { sessionId, token } = await server.createSession();
    const init = await server.initClient(sessionId, token);
    const page = await browser.newPage(server.url);
    await page.evaluate((whepUrl) => window.mpTest.connect({ whepUrl }), init.whepUrl);
    await page.evaluate(() =>
      window.mpTest.waitFor(async () => (await window.mpTest.stats()).framesDecoded > 5, 15000),
    );
    await page.waitForTimeout(1500);
    const base = `${server.url}/v1/avatar-session/${sessionId}`;
    const say: Array<{ audio: number; start: number }> = [];
    const silence: number[] = [];
    const fetches: number[] = [];
    const texts = [
      'Hello there.',
      'How can I help you today?',
      'Papa bought a big bag.',
      'Thanks for waiting, here is the answer you asked for.',
    ];
    for (let i = 0; i < ROUNDS; i++) {
      const r = await page.evaluate(
        async ({ base, token, text, turnId, floor }) => {
          const t = window.mpTest;
          const n0 = t.events.length;
          const t0 = performance.now();
          await fetch(`${base}/say-text`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ text, turnId }),
          });
          let audio = NaN;
          while (performance.now() - t0 < 5000) {
            if (t.audioRms() > floor) {
              audio = performance.now() - t0;
              break;
            }
            await new Promise((res) => setTimeout(res, 2));
          }
          const ev = t.events.slice(n0).find((e) => e.type === 'speakingStart') as
            { at?: number } | undefined;
          return { audio, start: ev?.at !== undefined ? ev.at - t0 : NaN };
        },
        { base, token, text: texts[i % texts.length]!, turnId: `s${i}`, floor: FLOOR },
      );
      say.push(r);
      await page.evaluate(() =>
        window.mpTest.waitFor(() => window.mpTest.events.at(-1)?.type === 'speakingEnd', 15000),
      );
      await page.waitForTimeout(300);
    }
    const cpu0 = cpuMs(engine);
    const wall0 = performance.now();
    for (let i = 0; i < ROUNDS; i++) {
      await server.api(`/v1/avatar-session/${sessionId}/say-text`, {
        token,
        json: {
          text: 'This sentence is long enough to still be playing when the interrupt arrives, so keep talking.',
          turnId: `i${i}`,
        },
      });
      await page.evaluate(() => window.mpTest.waitFor(() => window.mpTest.audioRms() > 0.05, 8000));
      await page.waitForTimeout(400);
      const ms = await page.evaluate(
        async (base2) => {
          const t = window.mpTest;
          const t0 = performance.now();
          await fetch(`${base2.base}/interrupt`, {
            method: 'POST',
            headers: { authorization: `Bearer ${base2.token}` },
          });
          (window as unknown as { lastFetchMs: number }).lastFetchMs = performance.now() - t0;
          let quietSince = NaN;
          while (performance.now() - t0 < 5000) {
            const now = performance.now();
            if (t.audioRms() < 0.01) {
              if (Number.isNaN(quietSince)) quietSince = now;
              if (now - quietSince >= 100) return quietSince - t0;
            } else quietSince = NaN;
            await new Promise((res) => setTimeout(res, 2));
          }
          return NaN;
        },
        { base, token },
      );
      silence.push(ms);
      fetches.push(await page.evaluate(() => (window as unknown as { lastFetchMs: number }).lastFetchMs));
      await page.waitForTimeout(300);
    }
    const cpuPct = ((cpuMs(engine) - cpu0) / (performance.now() - wall0)) * 100;
    const rss = rssMb(engine);
    const audio = say.map((s) => s.audio).filter(Number.isFinite);
    const start = say.map((s) => s.start).filter(Number.isFinite);
    const sil = silence.filter(Number.isFinite);
    const row = (name: string, xs: number[]) =>
      console.log(
        `${name.padEnd(34)} ${q(xs, 0.5).toFixed(0).padStart(6)} ${q(xs, 0.95).toFixed(0).padStart(6)} ${Math.max(
          ...xs,
        )
          .toFixed(0)
          .padStart(6)}   n=${xs.length}`,
      );
    console.log(`stream benchmark (${ROUNDS} rounds, 512x512@25, loopback in a network namespace)`);
    console.log('figure                               p50    p95    max  (ms)');
    row('say-text -> first audio at browser', audio);
    row('say-text -> speakingStart event', start);
    row('interrupt -> silence at browser', sil);
    row('interrupt request round trip', fetches);
    console.log(
      `engine process, one viewer, speaking: CPU ${cpuPct.toFixed(1)} % of a core, RSS ${rss.toFixed(0)} MB (idle engine ${rssIdle.toFixed(0)} MB)`,
    );
    console.log(
      JSON.stringify({
        bench: 'stream',
        rounds: ROUNDS,
        sayToAudioMs: { p50: q(audio, 0.5), p95: q(audio, 0.95), max: Math.max(...audio) },
        sayToSpeakingStartMs: { p50: q(start, 0.5), p95: q(start, 0.95) },
        interruptToSilenceMs: { p50: q(sil, 0.5), p95: q(sil, 0.95), max: Math.max(...sil) },
        interruptRequestMs: { p50: q(fetches, 0.5), p95: q(fetches, 0.95) },
        engineCpuPercentOneStream: +cpuPct.toFixed(1),
        engineRssMb: Math.round(rss),
        engineRssIdleMb: Math.round(rssIdle),
      }),
    );
    expect(audio.length).toBeGreaterThan(0);
  } finally {
    await browser.close();
    await server.stop();
  }
});
