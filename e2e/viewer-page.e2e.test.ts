/** The page served at `/` (the README quickstart ends there): it connects, shows and speaks. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './harness/browser.js';
import { requireE2eEnvironment, startServer, type TestServer } from './harness/server.js';

let server: TestServer;
let browser: TestBrowser;
beforeAll(async () => {
  requireE2eEnvironment();
  server = await startServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('the viewer page', () => {
  it('opens a backend-created session from the URL hash, plays video, speaks, and ends', async () => {
    const { sessionId, token } = await server.createSession({ visualConfig: { avatarId: 'jonas' } });
    const page = await browser.context.newPage();
    await page.goto(`${server.url}/#sessionId=${sessionId}&token=${token}`);
    await page.waitForFunction(() => document.getElementById('state')?.textContent === 'connected', null, {
      timeout: 20_000,
    });
    await page.waitForFunction(
      () => ((document.getElementById('video') as HTMLVideoElement | null)?.videoWidth ?? 0) > 0,
      null,
      { timeout: 20_000 },
    );
    await page.fill('#text', 'Papa bought a big bag of apples.');
    await page.click('#say button[type=submit]');
    await page.waitForFunction(() => document.getElementById('speaking')?.textContent === 'speaking', null, {
      timeout: 15_000,
    });
    await page.waitForTimeout(600);
    await page.screenshot({ path: '.test-results/viewer-page.png' });
    expect(await page.textContent('#latency')).toMatch(/say → speakingStart: \d+ ms/);
    await page.click('#end');
    await page.waitForFunction(() => document.getElementById('state')?.textContent === 'ended', null, {
      timeout: 10_000,
    });
    expect((await server.api(`/v1/avatar-session/${sessionId}/keep-alive`, { token, json: {} })).status).toBe(
      410,
    );
  });
});
