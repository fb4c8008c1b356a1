/**
 * The SDK as a web team installs it (docs/client.md "Installing from npm"): `npm pack` of
 * @mouthpiece/client and @mouthpiece/react installed into a fresh Vite + TypeScript app, which
 * type-checks and builds (e2e/harness/npm-app.ts). In Chromium, from that app's own origin:
 * - a plain TypeScript page plays a session view-only: frames arrive, the backend's speech is heard;
 * - a React page in <StrictMode> plays a session with exactly one WHEP connection (the double mount
 *   of development makes no second one), and taking <Avatar> off the page closes it without ending
 *   the session: the backend's keep-alive still answers 200.
 */
import type { Server } from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildNpmApp, serveStatic, steps } from './harness/npm-app.js';
import { useStack } from './harness/stack.js';

let site: { port: number; server: Server };

// the app first, then the stack: a server left idle through the build would find its HTTP
// connections stale
beforeAll(async () => {
  const started = Date.now();
  const dir = buildNpmApp();
  const each = Object.entries(steps).map(([step, s]) => `${step.trim()} ${s.toFixed(1)} s`);
  console.log(`the app: ${((Date.now() - started) / 1000).toFixed(1)} s (${each.join(', ')})`);
  site = await serveStatic(dir);
}, 300_000);
const stack = useStack();
afterAll(() => new Promise<void>((r) => (site ? site.server.close(() => r()) : r())));

interface Created {
  sessionId: string;
  token: string;
  viewerToken: string;
}

/** Counts the page's RTCPeerConnections (every one made, and those still open). */
async function countingPeers(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const Native = window.RTCPeerConnection;
    const peers: RTCPeerConnection[] = [];
    (window as unknown as { peers: RTCPeerConnection[] }).peers = peers;
    window.RTCPeerConnection = class extends Native {
      constructor(config?: RTCConfiguration) {
        super(config);
        peers.push(this);
      }
    };
  });
}

async function open(path: string, created: Created): Promise<Page> {
  const page = await stack.browser.context.newPage();
  await countingPeers(page);
  const hash = new URLSearchParams({
    baseUrl: stack.server.url,
    sessionId: created.sessionId,
    viewerToken: created.viewerToken,
  });
  const origin = new URL(stack.server.url);
  await page.goto(`${origin.protocol}//${origin.hostname}:${site.port}/${path}#${hash.toString()}`);
  return page;
}

/** In the page: video frames decoded in two seconds, and the loudest audio while the backend speaks. */
async function playing(page: Page, created: Created, turnId: string) {
  await page.waitForFunction(
    () => (window as any).mp.log.some((l: string) => l.startsWith('videoReady')),
    undefined,
    { timeout: 20_000 },
  );
  const frames = await page.evaluate(async () => {
    const video = document.querySelector('video')!;
    const before = video.getVideoPlaybackQuality().totalVideoFrames;
    await new Promise((r) => setTimeout(r, 2000));
    return video.getVideoPlaybackQuality().totalVideoFrames - before;
  });
  await page.evaluate(() => {
    const video = document.querySelector('video')!;
    const ctx = new AudioContext();
    const analyser = ctx.createAnalyser();
    ctx
      .createMediaStreamSource(new MediaStream((video.srcObject as MediaStream).getAudioTracks()))
      .connect(analyser);
    const buf = new Float32Array(analyser.fftSize);
    const meter = { peak: 0 };
    (window as any).meter = meter;
    setInterval(() => {
      analyser.getFloatTimeDomainData(buf);
      meter.peak = Math.max(meter.peak, Math.sqrt(buf.reduce((a, v) => a + v * v, 0) / buf.length));
    }, 20);
    return ctx.resume();
  });
  const said = await stack.server.api(`/v1/avatar-session/${created.sessionId}/say-text`, {
    token: created.token,
    json: { text: 'Hello from the backend.', turnId },
  });
  expect(said.status).toBe(200);
  await page.waitForFunction(
    (t) => (window as any).mp.log.some((l: string) => l.startsWith(`end:${t}`)),
    turnId,
    { timeout: 20_000 },
  );
  const heard = await page.evaluate(() => ({
    peak: (window as any).meter.peak as number,
    log: (window as any).mp.log as string[],
  }));
  return { frames, ...heard };
}

it('a plain TypeScript page built with Vite plays a session from the npm package', async () => {
  const created = (await stack.server.createSession()) as Created;
  const page = await open('plain.html', created);
  const played = await playing(page, created, 'plain-1');
  expect(played.frames).toBeGreaterThan(10); // 25 fps sent; a loaded machine decodes fewer
  expect(played.peak).toBeGreaterThan(0.02); // the speech is heard
  expect(played.log).toEqual(expect.arrayContaining(['ready', 'start:plain-1', 'end:plain-1']));
  expect(played.log.filter((l) => l.startsWith('error'))).toEqual([]);
  await page.close();
});

it('a React page in StrictMode plays with one WHEP connection; unmounting leaves the session alive', async () => {
  const created = (await stack.server.createSession()) as Created;
  const page = await open('react.html', created);
  const played = await playing(page, created, 'react-1');
  expect(played.frames).toBeGreaterThan(10);
  expect(played.peak).toBeGreaterThan(0.02);
  expect(played.log).toEqual(expect.arrayContaining(['start:react-1', 'end:react-1:false']));
  expect(played.log.filter((l) => l.startsWith('error'))).toEqual([]);
  const peers = () =>
    page.evaluate(() => {
      const all = (window as unknown as { peers: RTCPeerConnection[] }).peers;
      return { made: all.length, open: all.filter((p) => p.connectionState !== 'closed').length };
    });
  expect(await peers()).toEqual({ made: 1, open: 1 });
  expect(await page.getAttribute('[data-state]', 'data-state')).toBe('READY');

  await page.evaluate(() => (window as unknown as { unmount(): void }).unmount());
  await page.waitForSelector('#gone');
  await page.waitForFunction(() =>
    (window as unknown as { peers: RTCPeerConnection[] }).peers.every((p) => p.connectionState === 'closed'),
  );
  expect(await peers()).toEqual({ made: 1, open: 0 });
  const alive = await stack.server.api(`/v1/avatar-session/${created.sessionId}/keep-alive`, {
    token: created.token,
  });
  expect(alive.status).toBe(200);
  await page.close();
});
