/**
 * The container image as an operator runs it (docs/deploy.md, "Container"): started with podman
 * on the test namespace's network, a credential made with the CLI inside it, a session created
 * through it and played in Chromium with the SDK it serves, its healthcheck, its non-root user, and
 * its data kept in the volume across a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './harness/browser.js';
import { requireImage, runContainer, untilHealthy, type RunningContainer } from './harness/container.js';
import { freePort, requireE2eEnvironment } from './harness/server.js';

let container: RunningContainer;
let browser: TestBrowser;
let url = '';
let secret = '';

const createSession = (): Promise<Response> =>
  fetch(`${url}/v1/avatar-session`, {
    method: 'POST',
    headers: { authorization: `KS ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ visualConfig: { avatarId: 'amara' }, voiceConfig: { id: 'en-us-female' } }),
  });

beforeAll(async () => {
  requireE2eEnvironment();
  requireImage();
  const host = process.env['MOUTHPIECE_E2E_NETNS'] === '1' ? '10.99.0.2' : '127.0.0.1';
  const port = await freePort();
  url = `http://${host}:${port}`;
  container = runContainer(`mp-e2e-${process.pid}`, {
    PORT: String(port),
    MOUTHPIECE_PUBLIC_URL: url,
    MOUTHPIECE_ENGINE_PROCESSES: '1',
    MOUTHPIECE_TURN_PORT: String(await freePort()),
  });
  await untilHealthy(container);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  container?.remove();
});

describe('the container image', () => {
  it('runs as a non-root user, with coturn and ffmpeg beside the server', () => {
    expect(container.exec(['id', '-u']).trim()).not.toBe('0');
    expect(container.exec(['sh', '-c', 'command -v turnserver && command -v ffmpeg'])).toMatch(
      /turnserver\n.*ffmpeg/,
    );
    // managed coturn found and started (MOUTHPIECE_TURN defaults to managed when it is installed)
    expect(container.logs()).toMatch(/"turn":"managed".*"dataDir":"\/data".*mouthpiece listening/);
    expect(container.exec(['sh', '-c', 'cat /proc/[0-9]*/comm'])).toMatch(/^turnserver$/m);
  });

  it('a credential from the CLI inside it creates a session that plays in Chromium', async () => {
    const created = JSON.parse(
      container.exec(['mouthpiece', 'credentials', 'create', '--name', 'container', '--json']),
    ) as { secret: string };
    secret = created.secret;
    const res = await createSession();
    expect(res.status).toBe(200);
    const { sessionId, token } = (await res.json()) as { sessionId: string; token: string };

    const page = await browser.sdkPage(url);
    const r = await page.evaluate(
      async ({ baseUrl, sessionId, token }) => {
        const M = (window as unknown as { Mouthpiece: { AvatarSession: new (c: object) => any } }).Mouthpiece;
        const s = new M.AvatarSession({ baseUrl, logLevel: 'warn' });
        const log: string[] = [];
        s.on('connectionChange', (x: string) => log.push(`conn:${x}`));
        s.on('speakingEnd', (e: { turnId: string }) => log.push(`end:${e.turnId}`));
        s.on('videoReady', () => log.push('videoReady'));
        await s.initSession({ sessionId, token }, { videoContainerId: 'avatar' });
        const wait = async (pred: () => boolean, ms: number) => {
          const end = performance.now() + ms;
          while (performance.now() < end && !pred()) await new Promise((res) => setTimeout(res, 50));
        };
        await wait(() => log.includes('conn:CONNECTED') && log.includes('videoReady'), 20000);
        const video = document.querySelector('#avatar video') as HTMLVideoElement;
        const track = (video.srcObject as MediaStream).getAudioTracks()[0]!;
        const ctx = new AudioContext();
        const analyser = ctx.createAnalyser();
        ctx.createMediaStreamSource(new MediaStream([track])).connect(analyser);
        await ctx.resume();
        const buf = new Float32Array(analyser.fftSize);
        let peak = 0;
        const meter = setInterval(() => {
          analyser.getFloatTimeDomainData(buf);
          peak = Math.max(peak, Math.sqrt(buf.reduce((a, v) => a + v * v, 0) / buf.length));
        }, 20);
        const framesBefore = video.getVideoPlaybackQuality().totalVideoFrames;
        await s.sayText('Hello from inside a container.', 'c-1');
        await wait(() => log.includes('end:c-1'), 20000);
        clearInterval(meter);
        const framesAfter = video.getVideoPlaybackQuality().totalVideoFrames;
        const out = { log, peak, frames: framesAfter - framesBefore, width: video.videoWidth };
        await s.endSession();
        return out;
      },
      { baseUrl: url, sessionId, token },
    );
    expect(r.log).toContain('conn:CONNECTED');
    expect(r.log).toContain('end:c-1');
    expect(r.width).toBe(512);
    expect(r.frames).toBeGreaterThan(10); // video kept arriving while it spoke
    expect(r.peak).toBeGreaterThan(0.02); // and the speech was heard
    await page.close();
  });

  it('keeps its data in the volume across a restart, and its healthcheck passes again', async () => {
    expect(secret).not.toBe('');
    expect(container.exec(['ls', '/data'])).toMatch(/\.(db|sqlite)/);
    container.restart();
    await untilHealthy(container);
    // the credential made before the restart is still there (SQLite in the volume)
    const res = await createSession();
    expect(res.status).toBe(200);
    const { sessionId, token } = (await res.json()) as { sessionId: string; token: string };
    await fetch(`${url}/v1/avatar-session/${sessionId}/end`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
  }, 120_000);
});
