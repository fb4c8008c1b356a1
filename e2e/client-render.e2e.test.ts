/**
 * The SDK's `render: 'client'` in Chromium against the real server (docs/design.md §13.4), for
 * every avatar kind — vector, sprites, photo (the test portrait imported as a pack) and video (the
 * synthetic video pack): no inbound video RTP at all, the audio heard through the SDK's audio
 * element, the canvas's mouth box changing while speaking, still when idle, and still again within
 * two drawn frames of the audio's end after an interrupt; the canvas sharp at a 2× device pixel
 * ratio. The fallbacks to video: a photo avatar on a page without WebGL ('no-webgl'), a photo
 * avatar whose WebGL context is lost and never restored ('context-lost'), and a kind the operator
 * does not let browsers draw (MOUTHPIECE_CLIENT_RENDER, 'server').
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './harness/browser.js';
import {
  changes,
  histChange,
  clientPage,
  rtpCounts,
  speakAndInterrupt,
  startClientSession,
  type MouthBox,
  type SpeechRun,
} from './harness/client-render-page.js';
import { requireE2eEnvironment, startServer, type TestServer } from './harness/server.js';

let server: TestServer;
let browser: TestBrowser;
let packsDir: string;
/** The mouth box of each avatar, in its own pixels. */
const MOUTHS: Record<string, MouthBox> = {
  // vector and sprites: around the 512² design's mouth (amara's at y 280, up to ±44 px wide and
  // 21 px lower when open), clear of the nose and the chin, which head motion moves
  amara: { x: 200, y: 252, w: 112, h: 66, of: 512 },
  'amara-sprites': { x: 200, y: 252, w: 112, h: 66, of: 512 },
};

beforeAll(async () => {
  requireE2eEnvironment();
  packsDir = mkdtempSync(join(tmpdir(), 'mp-e2e-client-render-'));
  const { BUILTIN_AVATARS_DIR, importPhotoAvatar, readAvatarPacks, spritePackFromVector } =
    await import('@mouthpiece/engine/avatars');
  const { portraitFixture, writeSyntheticVideoPack } = await import('@mouthpiece/engine/testing');
  const amara = readAvatarPacks([BUILTIN_AVATARS_DIR]).packs.find((p) => p.manifest.id === 'amara')!.manifest;
  if (amara.render !== 'vector') throw new Error('amara is a vector avatar');
  await spritePackFromVector(amara, packsDir); // amara-sprites
  // photo: the portrait fills the (square) canvas; its mouth is landmarks 48–67
  const photo = await importPhotoAvatar(
    { id: 'astro', name: 'Astro', image: await portraitFixture({ scale: 2 }) },
    packsDir,
  );
  const portraitWidth = readFileSync(join(packsDir, 'astro', photo.image)).readUInt32BE(16); // PNG IHDR
  MOUTHS['astro'] = around(photo.landmarks.slice(48, 68), 0.35, portraitWidth);
  // video: video.json's mouth library box, in the canonical frame the footage fills
  const video = await writeSyntheticVideoPack(packsDir); // synthetic-video
  const b = video.index.library.box;
  MOUTHS['synthetic-video'] = { x: b.x, y: b.y, w: b.width, h: b.height, of: video.index.size };
  server = await startServer({ MOUTHPIECE_AVATARS_DIR: packsDir });
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (packsDir) rmSync(packsDir, { recursive: true, force: true });
});

/** The box around `points`, grown by `grow` of its size on each side. */
function around(points: Array<[number, number]>, grow: number, of: number): MouthBox {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const [gx, gy] = [(x1 - x0) * grow, (y1 - y0) * grow];
  return { x: x0 - gx, y: y0 - gy, w: x1 - x0 + 2 * gx, h: y1 - y0 + 2 * gy, of };
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
};

/** Display frames (≈ 130 ms at 60 Hz, over three 25 fps animation frames) in which the mouth must come to rest. */
const SETTLE_FRAMES = 8;

/**
 * What the run's display frames show of the mouth box. `change`: a frame's histogram against the
 * frame before; `fromRest`: a frame's histogram against the mean idle one (how far from rest).
 */
function mouthMotion(r: SpeechRun) {
  const ch = changes(r.samples);
  const phaseOf = (i: number) => r.samples[i]!.phase;
  const speaking = ch.filter((_, i) => i > 0 && phaseOf(i) === 'speaking');
  // a drawn change of the mouth: a quarter of what the busiest tenth of speaking frames change
  // (the rest of the display frames, between two 25 fps animation frames, change nothing)
  const threshold = 0.25 * quantile(speaking, 0.9);
  const idleHists = r.samples.filter((x) => x.phase === 'idle').map((x) => x.hist);
  const rest = idleHists[0]!.map((_, k) => idleHists.reduce((sum, h) => sum + h[k]!, 0) / idleHists.length);
  const fromRest = r.samples.map((x) => histChange(x.hist, rest));
  const fromRestIn = (phase: string) => fromRest.filter((_, i) => phaseOf(i) === phase);
  const firstInterrupted = r.samples.findIndex((x) => x.phase === 'interrupted');
  // the display frame from which the speech has ended for the viewer: speakingEnd received and
  // the audio no longer heard (the frames of the audio still in the playout delay are drawn first)
  const lastHeard = r.samples.findLastIndex((x) => x.rms > 0.1 * r.peak);
  const ended = Math.max(firstInterrupted, lastHeard);
  const movesAfter = (i: number, frames = ch.length) =>
    ch.slice(i + 1, i + 1 + frames).filter((c) => c > threshold).length;
  return {
    idleFrames: idleHists.length,
    speakingFrames: speaking.length,
    speakingMoves: speaking.filter((c) => c > threshold).length,
    threshold,
    idleFromRest: Math.max(...fromRestIn('idle')),
    speakingFromRest: quantile(fromRestIn('speaking'), 0.9),
    movesAfterSpeakingEnd: movesAfter(firstInterrupted - 1),
    movesAfterEnded: movesAfter(ended, SETTLE_FRAMES),
    largestSpeakingChange: quantile(speaking, 0.9),
    idleChange: Math.max(...ch.filter((_, i) => i > 0 && phaseOf(i) === 'idle')),
    laterChange: Math.max(...ch.slice(ended + 1 + SETTLE_FRAMES)),
  };
}

describe("render: 'client' in Chromium", () => {
  for (const avatarId of ['amara', 'amara-sprites', 'astro', 'synthetic-video']) {
    it(`${avatarId}: no video RTP, audio heard, the drawn mouth moves with speech, rests idle and after interrupt`, async () => {
      const page = await clientPage(browser, server);
      const log = await startClientSession(page, server, avatarId);
      expect(log).toContain('conn:CONNECTED');
      expect(log).toContain('videoReady:256x256');
      expect(log.filter((l) => l.startsWith('fallback'))).toEqual([]);
      const r = await speakAndInterrupt(page, MOUTHS[avatarId]!);
      await page.close();
      expect(r.videoElements).toBe(0);
      expect(r.canvasSize).toEqual([256, 256]);
      expect(r.canvasCss).toEqual([256, 256]);
      // no video at all: no inbound video RTP stream, no packet
      expect([r.before.videoEntries, r.during.videoEntries, r.after.videoEntries]).toEqual([0, 0, 0]);
      expect(r.after.videoPackets).toBe(0);
      // the audio arrives and is heard
      expect(r.during.samplesReceived).toBeGreaterThan(r.before.samplesReceived);
      expect(r.peak).toBeGreaterThan(0.02);

      const m = mouthMotion(r);
      console.log(
        `${avatarId}: mouth box from rest idle ≤ ${m.idleFromRest.toFixed(4)}, speaking (p90) ${m.speakingFromRest.toFixed(4)};` +
          ` ${m.speakingMoves} drawn changes while speaking; after the interrupt ${m.movesAfterSpeakingEnd} from speakingEnd,` +
          ` ${m.movesAfterEnded} once the audio was no longer heard; largest later change ${m.laterChange.toFixed(4)} (speech's p90 ${m.largestSpeakingChange.toFixed(4)})`,
      );
      expect(m.idleFrames).toBeGreaterThan(20);
      expect(m.speakingFrames).toBeGreaterThan(20);
      // speaking, the mouth moves: many drawn changes, far from its rest
      expect(m.speakingMoves).toBeGreaterThan(10);
      expect(m.speakingFromRest).toBeGreaterThan(0.02);
      // idle it rests: head sway and breathing (and the footage's shift) move the mouth inside the
      // box, which leaves its histogram nearly alone — far less than speech moves it
      // (measured 3.6–72×: least for amara, whose chin and nose sway near the box)
      expect(m.speakingFromRest).toBeGreaterThan(2.5 * m.idleFromRest);
      expect(m.idleChange).toBeLessThan(m.largestSpeakingChange);
      // the interrupt: the engine rests the mouth on the very next frame, so from the display frame
      // where the speech has ended for the viewer (speakingEnd received, the audio no longer heard)
      // the canvas changes at most twice: the last heard frame (drawn up to one 25 fps frame late:
      // the SDK holds a frame within +20/−40 ms of its audio) and the rest frame. (Counted from
      // speakingEnd alone, the frames still in the playout delay add 2–3.) The page's analyser hears
      // the audio before the output device, and the SDK draws each frame that device's delay later
      // (30 ms in headless Chromium, from its media-playout stats): one more frame of the speech may
      // follow the last sample the analyser heard, so at most three. Then it stays at rest:
      // nothing after changes as speech does.
      expect(m.movesAfterEnded).toBeLessThanOrEqual(3);
      expect(m.laterChange).toBeLessThan(m.largestSpeakingChange);
    });
  }

  it('at a 2× device pixel ratio the canvas has twice the pixels and sharper edges than 1× scaled up', async () => {
    const one = await clientPage(browser, server);
    const two = await clientPage(browser, server, { dpr: 2 });
    expect(await startClientSession(one, server, 'amara')).toContain('videoReady:256x256');
    expect(await startClientSession(two, server, 'amara')).toContain('videoReady:512x512');
    await new Promise((res) => setTimeout(res, 500));
    const png = await one.evaluate(() =>
      (document.querySelector('#avatar canvas') as HTMLCanvasElement).toDataURL(),
    );
    const r = await two.evaluate(async (png) => {
      const canvas = document.querySelector('#avatar canvas') as HTMLCanvasElement;
      const img = new Image();
      img.src = png;
      await img.decode();
      const scaled = document.createElement('canvas');
      scaled.width = canvas.width;
      scaled.height = canvas.height;
      const sctx = scaled.getContext('2d')!;
      sctx.imageSmoothingQuality = 'high';
      sctx.drawImage(img, 0, 0, scaled.width, scaled.height);
      /** Mean absolute luminance step between neighbours: how crisp the edges are. */
      const sharpness = (c: HTMLCanvasElement) => {
        const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        const lum = (i: number) => 0.299 * d[i]! + 0.587 * d[i + 1]! + 0.114 * d[i + 2]!;
        let sum = 0;
        for (let y = 0; y < c.height - 1; y++)
          for (let x = 0; x < c.width - 1; x++) {
            const i = (y * c.width + x) * 4;
            sum += Math.abs(lum(i) - lum(i + 4)) + Math.abs(lum(i) - lum(i + c.width * 4));
          }
        return sum / (c.width * c.height);
      };
      return {
        size: [canvas.width, canvas.height, canvas.clientWidth, canvas.clientHeight, devicePixelRatio],
        native: sharpness(canvas),
        upscaled: sharpness(scaled),
      };
    }, png);
    console.log(
      `DPR 2: edge sharpness ${r.native.toFixed(3)} native against ${r.upscaled.toFixed(3)} for 1× scaled up`,
    );
    expect(r.size).toEqual([512, 512, 256, 256, 2]);
    expect(r.native).toBeGreaterThan(1.2 * r.upscaled);
    for (const p of [one, two]) await p.evaluate(() => (window as any).s.endSession());
  });

  it("the demo page's 'Draw in the browser' toggle is remembered and draws the session on a canvas", async () => {
    const { sessionId, token } = await server.createSession({
      visualConfig: { avatarId: 'amara' },
      voiceConfig: { id: 'en-us-female' },
    });
    const page = await browser.context.newPage();
    await page.goto(`${server.url}/`);
    expect(await page.isChecked('#clientRender')).toBe(false);
    await page.check('#clientRender'); // remembered for the next visit
    await page.goto(`${server.url}/healthz`); // leave the page: the next one is a new visit
    await page.goto(`${server.url}/#sessionId=${sessionId}&token=${token}`);
    expect(await page.isChecked('#clientRender')).toBe(true);
    await page.waitForSelector('#avatar canvas', { timeout: 15000 });
    await page.waitForSelector('#poster', { state: 'hidden', timeout: 15000 }); // the first frame was drawn
    expect(await page.locator('#avatar video').count()).toBe(0);
    await server.api(`/v1/avatar-session/${sessionId}/end`, { token, json: {} });
    await page.goto(`${server.url}/healthz`);
    await page.goto(`${server.url}/`);
    expect(await page.isChecked('#clientRender')).toBe(true);
    await page.uncheck('#clientRender');
    expect(await page.evaluate(() => localStorage.getItem('mouthpiece.demo.render'))).toBe('video');
    await page.close();
  });

  it('a view-only page (viewer token) draws the session on a canvas: the pack loads with the viewer token', async () => {
    const created = (await server.createSession({
      visualConfig: { avatarId: 'amara' },
      voiceConfig: { id: 'en-us-female' },
    })) as { sessionId: string; token: string; viewerToken: string };
    const page = await browser.context.newPage();
    await page.goto(`${server.url}/`);
    await page.check('#clientRender');
    const packAuth: string[] = [];
    page.on('request', (r) => {
      if (/\/avatar(\/|$)/.test(new URL(r.url()).pathname)) packAuth.push(r.headers()['authorization'] ?? '');
    });
    await page.goto(`${server.url}/healthz`);
    await page.goto(`${server.url}/#sessionId=${created.sessionId}&viewerToken=${created.viewerToken}`);
    await page.waitForSelector('#avatar canvas', { timeout: 15000 });
    await page.waitForSelector('#poster', { state: 'hidden', timeout: 15000 }); // the first frame was drawn
    expect(await page.locator('#avatar video').count()).toBe(0);
    expect(packAuth.length).toBeGreaterThan(0);
    expect(new Set(packAuth)).toEqual(new Set([`Bearer ${created.viewerToken}`]));
    await page.evaluate(() => localStorage.removeItem('mouthpiece.demo.render')); // as it was
    await server.api(`/v1/avatar-session/${created.sessionId}/end`, { token: created.token, json: {} });
    await page.close();
  });

  it('a photo avatar on a page without WebGL falls back to video with renderFallback no-webgl', async () => {
    const page = await clientPage(browser, server, { webgl: false });
    const log = await startClientSession(page, server, 'astro');
    expect(log[0]).toBe('fallback:no-webgl');
    expect(log).toContain('conn:CONNECTED');
    await expectVideoShown(page);
  });

  it('a photo avatar whose WebGL context is lost and never restored falls back to video with renderFallback context-lost', async () => {
    const page = await clientPage(browser, server);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    expect(await startClientSession(page, server, 'astro')).toContain('videoReady:256x256');
    const log = await page.evaluate(async () => {
      const log = (window as any).log as string[];
      const canvas = document.querySelector('#avatar canvas') as HTMLCanvasElement;
      const gl = (canvas.getContext('webgl2') ?? canvas.getContext('webgl'))!;
      gl.getExtension('WEBGL_lose_context')!.loseContext(); // (and never restoreContext())
      // the fallback (3 s after the loss), then the new connection that asks for video
      const until = performance.now() + 15000;
      const videoConnected = () => {
        const at = log.findIndex((l) => l.startsWith('fallback'));
        return at >= 0 && log.slice(at).includes('conn:CONNECTED');
      };
      while (performance.now() < until && !videoConnected()) await new Promise((res) => setTimeout(res, 50));
      return [...log];
    });
    expect(log.filter((l) => l.startsWith('fallback'))).toEqual(['fallback:context-lost']);
    await expectVideoShown(page);
    expect(errors).toEqual([]);
  });
});

/** The session runs as video: inbound video RTP, a <video> with decoded frames, no canvas. */
async function expectVideoShown(page: Page): Promise<void> {
  const r = await page.evaluate(async () => {
    const video = document.querySelector<HTMLVideoElement>('#avatar video');
    // (frames keep coming: wait up to 5 s for the element to show a few of them)
    const until = performance.now() + 5000;
    while (performance.now() < until && (video?.getVideoPlaybackQuality().totalVideoFrames ?? 0) < 5)
      await new Promise((res) => setTimeout(res, 50));
    const frames = video?.getVideoPlaybackQuality().totalVideoFrames ?? 0;
    const result = {
      width: video?.videoWidth ?? 0,
      frames,
      canvases: document.querySelectorAll('#avatar canvas').length,
    };
    return result;
  });
  const rtp = await rtpCounts(page);
  await page.evaluate(() => (window as any).s.endSession());
  await page.close();
  expect(rtp.videoPackets).toBeGreaterThan(0);
  expect(r.width).toBeGreaterThan(0);
  expect(r.frames).toBeGreaterThan(0);
  expect(r.canvases).toBe(0);
}

describe('a kind the operator does not let browsers draw', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startServer({
      MOUTHPIECE_AVATARS_DIR: packsDir,
      MOUTHPIECE_CLIENT_RENDER: 'vector,sprites,photo',
    });
  }, 30_000);
  afterAll(async () => limited?.stop());

  it('falls back to video with renderFallback server (the pack listing answers 403 CLIENT_RENDER_DISABLED)', async () => {
    const page = await clientPage(browser, limited);
    const log = await startClientSession(page, limited, 'synthetic-video');
    expect(log[0]).toBe('fallback:server');
    expect(log).toContain('conn:CONNECTED');
    await expectVideoShown(page);
  });
});
