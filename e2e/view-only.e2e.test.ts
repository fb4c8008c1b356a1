/**
 * The view-only page (docs/client.md "View-only pages"): a backend creates the session and keeps
 * its token; the page opens it with `initSession({ sessionId, viewerToken })`, shows and hears the
 * avatar, and cannot make it speak — not through the SDK, not with a fetch of its own — while the
 * backend's say-text makes the page's avatar speak.
 */
import { expect, it } from 'vitest';
import { useStack } from './harness/stack.js';

const stack = useStack();

interface Created {
  sessionId: string;
  token: string;
  viewerToken: string;
}

it('a page with the viewer token watches and hears; only the backend makes the avatar speak', async () => {
  const created = (await stack.server.createSession()) as Created;
  expect(created.viewerToken).toMatch(/^[A-Za-z0-9_-]{22}$/);
  const page = await stack.browser.sdkPage(stack.server.url);
  const opened = await page.evaluate(
    async ({ baseUrl, sessionId, viewerToken }) => {
      const M = (window as unknown as { Mouthpiece: { AvatarSession: new (c: object) => any } }).Mouthpiece;
      const s = new M.AvatarSession({ baseUrl, logLevel: 'warn' });
      const log: string[] = [];
      s.on('connectionChange', (x: string) => log.push(`conn:${x}`));
      s.on('speakingStart', (e: { turnId: string }) => log.push(`start:${e.turnId}`));
      s.on('speakingEnd', (e: { turnId: string }) => log.push(`end:${e.turnId}`));
      s.on('videoReady', () => log.push('videoReady'));
      await s.initSession({ sessionId, viewerToken }, { videoContainerId: 'avatar' });
      const w = window as unknown as Record<string, unknown>;
      w['s'] = s;
      w['log'] = log;
      const wait = async (pred: () => boolean, ms: number) => {
        const end = performance.now() + ms;
        while (performance.now() < end && !pred()) await new Promise((res) => setTimeout(res, 50));
        return pred();
      };
      w['wait'] = wait;
      await wait(() => log.includes('conn:CONNECTED') && log.includes('videoReady'), 15000);
      // the speech meter on the SDK's own video element's audio
      const video = document.querySelector('#avatar video') as HTMLVideoElement;
      const ctx = new AudioContext();
      const analyser = ctx.createAnalyser();
      ctx
        .createMediaStreamSource(new MediaStream((video.srcObject as MediaStream).getAudioTracks()))
        .connect(analyser);
      await ctx.resume();
      const buf = new Float32Array(analyser.fftSize);
      const meter = { peak: 0 };
      w['meter'] = meter;
      setInterval(() => {
        analyser.getFloatTimeDomainData(buf);
        meter.peak = Math.max(meter.peak, Math.sqrt(buf.reduce((a, v) => a + v * v, 0) / buf.length));
      }, 20);
      const framesBefore = video.getVideoPlaybackQuality().totalVideoFrames;
      await new Promise((res) => setTimeout(res, 1000));
      const framesAfter = video.getVideoPlaybackQuality().totalVideoFrames;
      // the page tries to speak: the SDK refuses, sending nothing
      const refused = await s.sayText('Say something you should not.').then(
        () => null,
        (e: { name: string; code: string; message: string; details?: { code?: string } }) => ({
          name: e.name,
          code: e.code,
          detail: e.details?.code,
          message: e.message,
        }),
      );
      // …and with a fetch of its own: the server refuses
      const direct = await fetch(`${baseUrl}/v1/avatar-session/${sessionId}/say-text`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${viewerToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: 'Say something you should not.' }),
      });
      return {
        viewOnly: s.viewOnly as boolean,
        state: s.getSessionState() as string,
        width: video.videoWidth,
        framesInASecond: framesAfter - framesBefore,
        refused,
        direct: { status: direct.status, body: (await direct.json()) as unknown },
        peak: meter.peak,
      };
    },
    { baseUrl: stack.server.url, sessionId: created.sessionId, viewerToken: created.viewerToken },
  );
  expect(opened).toMatchObject({ viewOnly: true, state: 'READY', width: 512 });
  expect(opened.framesInASecond).toBeGreaterThan(10); // the video plays (25 fps sent)
  expect(opened.refused).toMatchObject({
    name: 'ViewOnlyError',
    code: 'UNAUTHORIZED',
    detail: 'VIEW_ONLY',
    message: expect.stringMatching(/^view-only session: sayText needs the session token/) as unknown,
  });
  expect(opened.direct).toMatchObject({
    status: 403,
    body: { success: false, code: 'FORBIDDEN', error: expect.stringContaining('viewer token') as unknown },
  });
  expect(opened.peak).toBeLessThan(0.02); // nothing was said: the refused text made no sound

  // the backend speaks with the session token; the page shows and hears it
  const said = await fetch(`${stack.server.url}/v1/avatar-session/${created.sessionId}/say-text`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${created.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ text: 'Hello from the backend.', turnId: 'backend-1' }),
  });
  expect(said.status).toBe(200);
  const heard = await page.evaluate(async () => {
    const w = window as unknown as {
      log: string[];
      meter: { peak: number };
      wait: (pred: () => boolean, ms: number) => Promise<boolean>;
    };
    await w.wait(() => w.log.includes('end:backend-1'), 15000);
    return { log: w.log, peak: w.meter.peak };
  });
  expect(heard.log.indexOf('start:backend-1')).toBeGreaterThan(-1);
  expect(heard.log.indexOf('start:backend-1')).toBeLessThan(heard.log.indexOf('end:backend-1'));
  expect(heard.peak).toBeGreaterThan(0.02); // heard through the page's own video element

  // disconnecting the page ends nothing: the backend still holds a live session
  await page.evaluate(async () => {
    await (window as unknown as { s: { disconnect(): Promise<void> } }).s.disconnect();
  });
  const alive = await fetch(`${stack.server.url}/v1/avatar-session/${created.sessionId}/keep-alive`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${created.token}` },
  });
  expect(alive.status).toBe(200);
});
