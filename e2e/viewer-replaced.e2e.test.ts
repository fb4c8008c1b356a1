/**
 * Two pages on one session (two tabs): the newer viewer takes the video, the displaced page is
 * told (`replaced`) and stops for good instead of reconnecting every few seconds.
 */
import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useStack } from './harness/stack.js';

const stack = useStack();

/** A page that opens the session with the SDK and logs its events into `window.log`. */
async function viewer(session: { sessionId: string; token: string }): Promise<Page> {
  const page = await stack.browser.sdkPage(stack.server.url);
  await page.evaluate(
    async ({ baseUrl, session }) => {
      const M = (window as unknown as { Mouthpiece: { AvatarSession: new (c: object) => any } }).Mouthpiece;
      const s = new M.AvatarSession({ baseUrl, logLevel: 'error', endOnPageHide: false });
      const log: string[] = [];
      (window as unknown as { log: string[] }).log = log;
      s.on('connectionChange', (x: string) => log.push(`conn:${x}`));
      s.on('stateChange', (x: string) => log.push(`state:${x}`));
      s.on('videoReady', () => log.push('videoReady'));
      s.on('error', (e: { code: string; details?: { code?: string } }) =>
        log.push(`error:${e.code}:${e.details?.code ?? ''}`),
      );
      await s.initSession(session, { videoContainerId: 'avatar' });
    },
    { baseUrl: stack.server.url, session },
  );
  await page.waitForFunction(
    () => (window as unknown as { log: string[] }).log.includes('videoReady'),
    null,
    {
      timeout: 20_000,
    },
  );
  return page;
}

const logOf = (page: Page) => page.evaluate(() => [...(window as unknown as { log: string[] }).log]);
const framesDecoded = (page: Page) =>
  page.evaluate(() => {
    const v = document.querySelector<HTMLVideoElement>('#avatar video');
    return v?.getVideoPlaybackQuality().totalVideoFrames ?? 0;
  });

it('the displaced page gets REPLACED, stays closed, and the new page keeps playing', async () => {
  const session = await stack.server.createSession();
  const first = await viewer(session);
  const second = await viewer(session);

  await first.waitForFunction(
    () => (window as unknown as { log: string[] }).log.some((l) => l.endsWith(':REPLACED')),
    null,
    { timeout: 10_000 },
  );
  const frames = await framesDecoded(second);
  await new Promise((r) => setTimeout(r, 6000)); // longer than the old page took to fight back
  const firstLog = await logOf(first);
  expect(firstLog).toContain('error:RTC_CONNECTION_FAILED:REPLACED');
  expect(firstLog.at(-1)).not.toBe('conn:CONNECTING'); // no reconnect after the replacement
  expect(firstLog.filter((l) => l === 'conn:CONNECTING')).toHaveLength(1); // only its first connect
  expect(firstLog).toContain('conn:CLOSED');
  expect(await framesDecoded(second)).toBeGreaterThan(frames + 50); // ~25/s for 6 s
  expect(await logOf(second)).not.toContain('conn:CLOSED');
  const alive = await stack.server.api(`/v1/avatar-session/${session.sessionId}/keep-alive`, {
    token: session.token,
  });
  expect(alive.status).toBe(200);
  await first.close();
  await second.close();
}, 60_000);
