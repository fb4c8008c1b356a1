/**
 * Startup as a page sees it, with the browser SDK: createSession() → create answered →
 * init-client answered → WHEP offer sent → WHEP answered → ICE connected → DTLS up (the peer
 * connection `connected`) → first video RTP (the track unmuted) → first decoded frame
 * (videoReady), over N sessions of each mode, interleaved so both see the same machine:
 * - `trickle`: init-client says `trickleIce` (this server): the offer goes before ICE gathering
 *   ends, candidates follow by PATCH;
 * - `gather`: the page hides `trickleIce` from the SDK, as an older server would: the offer waits
 *   for gathering (the SDK's behaviour before trickle).
 * The page's RTCPeerConnection is wrapped to see its states; the SDK itself is not touched.
 */
import { it } from 'vitest';
import { launchBrowser } from '../../e2e/harness/browser.js';
import { startServer } from '../../e2e/harness/server.js';
import { fmt, quantile, report, row, smoke } from '../lib/measure.js';

const N = smoke ? 2 : 20;
const MODES = ['trickle', 'gather'] as const;
type Mode = (typeof MODES)[number];
const STEPS = [
  ['create answered', 'create'],
  ['init-client answered', 'init'],
  ['WHEP offer sent', 'offer'],
  ['WHEP answer (server + engine peer)', 'whep'],
  ['ICE connected', 'ice'],
  ['DTLS up (peer connected)', 'dtls'],
  ['first video RTP (track unmuted)', 'rtp'],
  ['first decoded frame', 'frame'],
] as const;
type Run = Record<(typeof STEPS)[number][1], number>;

it('measures', async () => {
  const server = await startServer({ MOUTHPIECE_LOG_LEVEL: 'warn' });
  const browser = await launchBrowser();
  const runs: Record<Mode, Run[]> = { trickle: [], gather: [] };
  try {
    for (let i = 0; i < N * MODES.length; i++) {
      const mode = MODES[i % MODES.length]!;
      const page = await browser.sdkPage(server.url);
      runs[mode].push(
        await page.evaluate(
          async ({ baseUrl, credential, mode }) => {
            const marks: Record<string, number> = {};
            const mark = (k: string): void => void (marks[k] ??= performance.now());
            const RealPeer = window.RTCPeerConnection;
            window.RTCPeerConnection = class extends RealPeer {
              constructor(config?: RTCConfiguration) {
                super(config);
                this.addEventListener('iceconnectionstatechange', () => {
                  if (this.iceConnectionState === 'connected') mark('ice');
                });
                this.addEventListener('connectionstatechange', () => {
                  if (this.connectionState === 'connected') mark('dtls');
                });
                this.addEventListener('track', (e) => {
                  if (e.track.kind === 'video') e.track.addEventListener('unmute', () => mark('rtp'));
                });
              }
            };
            const realFetch = window.fetch.bind(window);
            window.fetch = async (url: RequestInfo | URL, init?: RequestInit) => {
              const u = typeof url === 'string' ? url : url instanceof URL ? url.href : url.url;
              const offer = u.includes('/whep') && init?.method === 'POST';
              if (offer) mark('offer');
              const r = await realFetch(url, init);
              if (u.endsWith('/v1/avatar-session')) mark('create');
              else if (offer) mark('whep');
              else if (u.includes('/init-client')) {
                mark('init');
                if (mode === 'gather') {
                  const body = (await r.json()) as Record<string, unknown>;
                  delete body['trickleIce']; // as a server without trickle says nothing
                  return new Response(JSON.stringify(body), { status: r.status, headers: r.headers });
                }
              }
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
            marks['frame'] = await frame;
            await s.endSession();
            const since = (k: string): number => (marks[k] ?? NaN) - t0;
            return {
              create: since('create'),
              init: since('init'),
              offer: since('offer'),
              whep: since('whep'),
              ice: since('ice'),
              dtls: since('dtls'),
              rtp: since('rtp'),
              frame: since('frame'),
            };
          },
          { baseUrl: server.url, credential: server.secret, mode },
        ),
      );
      await page.close();
    }
  } finally {
    await browser.close();
    await server.stop();
  }
  report(
    `startup benchmark: ${N} sessions per mode (interleaved), SDK createSession in Chromium, loopback in a network namespace`,
  );
  const json: Record<string, unknown> = {};
  for (const mode of MODES) json[mode] = table(mode, runs[mode]);
  const initToFrame = (mode: Mode) => runs[mode].map((r) => r.frame - r.create);
  const [t, g] = MODES.map((m) => initToFrame(m));
  const ratio = (p: number) => quantile(t!, p) / quantile(g!, p);
  report(
    `init-client sent -> first frame: trickle p50 ${fmt(quantile(t!, 0.5))} / p95 ${fmt(quantile(t!, 0.95))} ms; ` +
      `gather p50 ${fmt(quantile(g!, 0.5))} / p95 ${fmt(quantile(g!, 0.95))} ms; ratio trickle/gather p50 ${fmt(ratio(0.5), 2)}, p95 ${fmt(ratio(0.95), 2)} (target p50 <= 250, p95 <= 500)`,
  );
  report(
    JSON.stringify({
      bench: 'startup',
      smoke,
      sessions: N,
      ...json,
      initToFirstFrameMs: {
        p50: +quantile(t!, 0.5).toFixed(1),
        p95: +quantile(t!, 0.95).toFixed(1),
      },
      gatherInitToFirstFrameMs: {
        p50: +quantile(g!, 0.5).toFixed(1),
        p95: +quantile(g!, 0.95).toFixed(1),
      },
    }),
  );
});

/** One mode's steps: cumulative p50/p95 from createSession, and each step's own p50 and share. */
function table(mode: Mode, runs: Run[]): Record<string, unknown> {
  report(`-- ${mode}`);
  report(
    row('step (cumulative from createSession)', ['p50', 'p95', 'step p50', 'share'], 42, 10) + '   (ms)',
  );
  const col = (k: keyof Run) => runs.map((r) => r[k]);
  const total = quantile(col('frame'), 0.5);
  let prev: number[] = runs.map(() => 0);
  const steps: Record<string, unknown> = {};
  for (const [name, k] of STEPS) {
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
  return steps;
}
