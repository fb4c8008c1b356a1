/**
 * Startup as a page sees it, with the browser SDK: createSession() → create answered →
 * init-client answered → WHEP answered → first decoded frame (videoReady), over N sessions.
 */
import { it } from 'vitest';
import { launchBrowser } from '../../e2e/harness/browser.js';
import { startServer } from '../../e2e/harness/server.js';
import { fmt, quantile, report, row, smoke } from '../lib/measure.js';

const N = smoke ? 2 : 20;

it('measures', async () => {
  const server = await startServer({ MOUTHPIECE_LOG_LEVEL: 'warn' });
  const browser = await launchBrowser();
  const runs: Array<{ create: number; init: number; offer: number; whep: number; frame: number }> = [];
  try {
    for (let i = 0; i < N; i++) {
      const page = await browser.sdkPage(server.url);
      runs.push(
        await page.evaluate(
          async ({ baseUrl, credential }) => {
            const marks: Record<string, number> = {};
            const realFetch = window.fetch.bind(window);
            window.fetch = async (url: RequestInfo | URL, init?: RequestInit) => {
              const u = typeof url === 'string' ? url : url instanceof URL ? url.href : url.url;
              if (u.includes('/whep') && init?.method === 'POST' && marks['offer'] === undefined)
                marks['offer'] = performance.now();
              const r = await realFetch(url, init);
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
              offer: marks['offer']! - t0,
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
  report(`startup benchmark: ${N} sessions, SDK createSession in Chromium, loopback in a network namespace`);
  report(
    row('step (cumulative from createSession)', ['p50', 'p95', 'step p50', 'share'], 42, 10) + '   (ms)',
  );
  const total = quantile(frame, 0.5);
  let prev: number[] = runs.map(() => 0);
  const steps: Record<string, unknown> = {};
  for (const [name, k] of [
    ['create answered', 'create'],
    ['init-client answered', 'init'],
    ['WHEP offer sent (browser ICE gathering)', 'offer'],
    ['WHEP answer', 'whep'],
    ['first decoded frame', 'frame'],
  ] as const) {
    const xs = col(k);
    const step = quantile(
      xs.map((x, i) => x - prev[i]!),
      0.5,
    );
    report(
      row(
        name,
        [fmt(quantile(xs, 0.5)), fmt(quantile(xs, 0.95)), fmt(step), `${fmt((step / total) * 100)} %`],
        42,
        10,
      ),
    );
    steps[k] = {
      p50: +quantile(xs, 0.5).toFixed(1),
      p95: +quantile(xs, 0.95).toFixed(1),
      stepP50: +step.toFixed(1),
    };
    prev = xs;
  }
  const initToFrame = runs.map((r) => r.frame - r.create);
  report(
    `init-client sent -> first frame: p50 ${fmt(quantile(initToFrame, 0.5))} ms, p95 ${fmt(quantile(initToFrame, 0.95))} ms (target p50 <= 500)`,
  );
  report(
    JSON.stringify({
      bench: 'startup',
      smoke,
      sessions: N,
      steps,
      initToFirstFrameMs: {
        p50: +quantile(initToFrame, 0.5).toFixed(1),
        p95: +quantile(initToFrame, 0.95).toFixed(1),
      },
    }),
  );
});
