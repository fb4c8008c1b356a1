/**
 * Startup as a page sees it, with the browser SDK: createSession() → create answered →
 * init-client answered → WHEP answered → first decoded frame (videoReady), over N sessions.
 */
import { it } from 'vitest';
import { launchBrowser } from '../../e2e/harness/browser.js';
import { startServer } from '../../e2e/harness/server.js';

const N = process.env['BENCH_SMOKE'] === '1' ? 2 : 20;
const q = (xs: number[], p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN;

it('measures', async () => {
  const server = await startServer({ MOUTHPIECE_LOG_LEVEL: 'warn' });
  const browser = await launchBrowser();
  const runs: Array<{ create: number; init: number; whep: number; frame: number }> = [];
  try {
    for (let i = 0; i < N; i++) {
      const page = await browser.context.newPage();
      await page.goto(`${server.url}/healthz`);
      await page.setContent('<div id="avatar" style="width:256px;height:256px"></div>');
      await page.addScriptTag({ url: `${server.url}/sdk/mouthpiece.js` });
      runs.push(
        await page.evaluate(
          async ({ baseUrl, credential }) => {
            const marks: Record<string, number> = {};
            const realFetch = window.fetch.bind(window);
            window.fetch = async (url: RequestInfo | URL, init?: RequestInit) => {
              const r = await realFetch(url, init);
              const u = typeof url === 'string' ? url : url instanceof URL ? url.href : url.url;
              const key = u.endsWith('/v1/avatar-session')
                ? 'create'
                : u.includes('/init-client')
                  ? 'init'
                  : u.includes('/whep') && init?.method === 'POST'
                    ? 'whep'
                    : '';
              if (key && marks[key] === undefined) marks[key] = performance.now();
              return r;
            };
            const s = new (window as any).Mouthpiece.AvatarSession({
              baseUrl,
              credential,
              logLevel: 'error',
            });
            const frame = new Promise<number>((res) => s.on('videoReady', () => res(performance.now())));
            const t0 = performance.now();
            await s.createSession({ avatarId: 'amara', videoContainerId: 'avatar' });
            const f = await frame;
            await s.endSession();
            return {
              create: marks['create']! - t0,
              init: marks['init']! - t0,
              whep: marks['whep']! - t0,
              frame: f - t0,
            };
          },
          { baseUrl: server.url, credential: server.secret },
        ),
      );
      await page.close();
    }
  } finally {
    await browser.close();
    await server.stop();
  }
  const col = (k: keyof (typeof runs)[number]) => runs.map((r) => r[k]);
  const frame = col('frame');
  console.log(
    `startup benchmark (${N} sessions, SDK createSession in Chromium, loopback in a network namespace)`,
  );
  console.log('step (cumulative from createSession)     p50    p95  (ms)');
  for (const [name, k] of [
    ['create answered', 'create'],
    ['init-client answered', 'init'],
    ['WHEP answer', 'whep'],
    ['first decoded frame', 'frame'],
  ] as const) {
    console.log(
      `${name.padEnd(38)} ${q(col(k), 0.5).toFixed(0).padStart(6)} ${q(col(k), 0.95).toFixed(0).padStart(6)}`,
    );
  }
  const initToFrame = runs.map((r) => r.frame - r.create);
  console.log(`init-client sent -> first frame: p50 ${q(initToFrame, 0.5).toFixed(0)} ms (target <= 500)`);
  console.log(
    JSON.stringify({
      bench: 'startup',
      sessions: N,
      createMs: q(col('create'), 0.5),
      initClientMs: q(col('init'), 0.5),
      whepAnswerMs: q(col('whep'), 0.5),
      firstFrameMs: { p50: q(frame, 0.5), p95: q(frame, 0.95) },
      initToFirstFrameMs: { p50: q(initToFrame, 0.5), p95: q(initToFrame, 0.95) },
    }),
  );
});
