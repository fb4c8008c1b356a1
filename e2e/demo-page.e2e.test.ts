/** The demo page at `/` (the README quickstart ends there), clicked through as a person would. */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useStack } from './harness/stack.js';

const stack = useStack();

const text = (id: string) => `document.getElementById('${id}')?.textContent`;

/** Waits until the page settles on a session state, then says which one it settled on. */
async function settledState(page: Page): Promise<string | null> {
  await page.waitForFunction(`['READY', 'ERROR', 'ENDED'].includes(${text('state')})`, null, {
    timeout: 20_000,
  });
  return page.textContent('#state');
}

async function playing(page: Page): Promise<void> {
  expect(await settledState(page)).toBe('READY');
  await page.waitForFunction(
    `${text('connection')} === 'CONNECTED' && (document.querySelector('#avatar video')?.videoWidth ?? 0) > 0`,
    null,
    { timeout: 20_000 },
  );
}

const logLines = (page: Page, level: 'info' | 'warn' | 'error') =>
  page.$$eval(`#log .${level}`, (lines) => lines.map((l) => l.textContent ?? ''));

describe('the demo page', () => {
  it('opened on a backend-created session: no credential form, a connecting poster, plays, survives a reload', async () => {
    const { sessionId, token } = await stack.server.createSession({ visualConfig: { avatarId: 'jonas' } });
    const page = await stack.browser.context.newPage();
    // hold init-client so the page is seen before its first frame
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/init-client', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${stack.server.url}/#sessionId=${sessionId}&token=${token}`);
    expect(await page.isHidden('#create')).toBe(true);
    expect(await page.isVisible('#poster')).toBe(true);
    expect(await page.textContent('#poster')).toMatch(/connecting…/);
    await page.screenshot({ path: '.test-results/demo-page-connecting.png' });
    release(); // init-client after the reload below passes straight through
    await playing(page);
    await page.waitForSelector('#poster', { state: 'hidden' });
    await page.screenshot({ path: '.test-results/demo-page-hash.png' });

    await page.fill('#text', 'Papa bought a big bag of apples.');
    await page.click('#say button[type=submit]');
    await page.waitForFunction(`${text('speaking')} === 'speaking'`, null, { timeout: 15_000 });
    expect(await page.textContent('#latency')).toMatch(/say → speakingStart: \d+ ms/);

    // a reload shows the same session again: the page does not end what the backend created
    await page.reload();
    await playing(page);
    const api = (path: string, json: unknown) =>
      stack.server.api(`/v1/avatar-session/${sessionId}/${path}`, { token, json });
    expect((await api('keep-alive', {})).status).toBe(200);
    const said = await api('say-text', {
      text: 'After the reload I am still here, and I keep on talking for a little while longer.',
      turnId: 'after-reload',
      isFinal: true,
    });
    expect(said.status).toBe(200);
    await page.waitForFunction(`${text('speaking')} === 'speaking'`, null, { timeout: 15_000 });
    await page.waitForFunction(`(${text('caption')} ?? '').length > 0`, null, { timeout: 10_000 });

    // the backend ends it (README step 6) mid-sentence: a normal end, and the labels clear
    expect((await api('end', {})).status).toBe(200);
    await page.waitForFunction(`${text('state')} === 'ENDED'`, null, { timeout: 10_000 });
    expect(await page.textContent('#caption')).toBe('');
    expect(await page.textContent('#speaking')).toBe('silent');
    expect(await page.isVisible('#poster')).toBe(true);
    expect(await page.textContent('#poster')).toMatch(/ended \(ended_by_client\)/);
    expect((await logLines(page, 'info')).join('\n')).toMatch(/session ended \(ended_by_client\)/);
    expect(await logLines(page, 'error')).toEqual([]);
  });

  it('opened with a viewer token: plays, says it only watches with its controls off, the backend speaks', async () => {
    const created = (await stack.server.createSession()) as {
      sessionId: string;
      token: string;
      viewerToken: string;
    };
    const page = await stack.browser.context.newPage();
    await page.goto(`${stack.server.url}/#sessionId=${created.sessionId}&viewerToken=${created.viewerToken}`);
    await playing(page);
    expect(await page.isVisible('#watching')).toBe(true);
    expect(await page.isHidden('#opened')).toBe(true);
    for (const control of ['#say button[type=submit]', '#stream', '#mp3', '#interrupt', '#end', '#text']) {
      expect(await page.isDisabled(control), control).toBe(true);
    }
    const said = await stack.server.api(`/v1/avatar-session/${created.sessionId}/say-text`, {
      token: created.token,
      json: { text: 'The backend says this, and the page shows it.', turnId: 'backend' },
    });
    expect(said.status).toBe(200);
    await page.waitForFunction(`${text('speaking')} === 'speaking'`, null, { timeout: 15_000 });
  });

  it('says why a session link does not open, on the poster and in a log that wraps long lines', async () => {
    const page = await stack.browser.context.newPage();
    await page.goto(`${stack.server.url}/#sessionId=${'x'.repeat(300)}&token=not-a-token`);
    expect(await settledState(page)).toBe('ERROR');
    expect(await page.isHidden('#create')).toBe(true);
    await page.waitForFunction(`document.querySelectorAll('#log .error').length > 0`);
    expect(await page.textContent('#poster')).toMatch(/Could not open the session/);
    const overflow = await page.$eval('#log', (el) => el.scrollWidth - el.clientWidth);
    expect(overflow).toBe(0);
    await page.screenshot({ path: '.test-results/demo-page-bad-link.png' });
  });

  it('has a favicon, so the browser asks for nothing that is missing', async () => {
    const page = await stack.browser.context.newPage();
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(stack.server.url);
    const icon = await page.getAttribute('link[rel=icon][type="image/svg+xml"]', 'href');
    const svg = await fetch(new URL(icon!, stack.server.url));
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    const ico = await fetch(`${stack.server.url}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toMatch(/^image\//);
    expect(failed).toEqual([]);
  });

  it('frontend-only: credential, catalog pickers, create, stream word by word, captions, interrupt, end', async () => {
    const page = await stack.browser.context.newPage();
    await page.goto(stack.server.url);
    await page.fill('#credential', stack.server.secret);
    await page.click('#load');
    await page.waitForFunction(
      `document.querySelectorAll('#avatarId option').length >= 3 && document.querySelectorAll('#voiceId option').length >= 13`,
    );
    await page.selectOption('#avatarId', 'amara');
    await page.selectOption('#voiceId', 'en-gb-female');
    await page.click('#create button[type=submit]');
    await page.waitForFunction(`${text('connection')} === 'CONNECTED'`, null, { timeout: 20_000 });
    await page.fill(
      '#text',
      'Streaming one word at a time, like a language model would, then the final chunk.',
    );
    await page.click('#stream');
    await page.waitForFunction(`${text('speaking')} === 'speaking'`, null, { timeout: 20_000 });
    await page.waitForFunction(`(${text('caption')} ?? '').length > 0`, null, { timeout: 10_000 });
    await page.waitForTimeout(700);
    await page.screenshot({ path: '.test-results/demo-page.png' });
    await page.click('#interrupt');
    await page.waitForFunction(`${text('speaking')} === 'interrupted'`, null, { timeout: 10_000 });
    expect(await page.textContent('#log')).not.toMatch(/API_REQUEST_FAILED|UNAUTHORIZED/);
    await page.click('#end');
    await page.waitForFunction(`${text('state')} === 'ENDED'`, null, { timeout: 10_000 });
    expect(await page.textContent('#speaking')).toBe('silent');
    expect(await page.textContent('#caption')).toBe('');
    // the page logs the end once endSession() has resolved (WHEP DELETE, then /end): after ENDED shows
    await page
      .waitForFunction(
        `[...document.querySelectorAll('#log .info')].some((l) => /session ended/.test(l.textContent ?? ''))`,
        null,
        { timeout: 10_000 },
      )
      .catch(() => undefined);
    expect((await logLines(page, 'info')).join('\n')).toMatch(/session ended/);
    expect(await logLines(page, 'error')).toEqual([]);
    await page.screenshot({ path: '.test-results/demo-page-ended.png' });

    // a session this page created itself ends when the page goes away (here: a reload)
    const created = page.waitForResponse(
      (r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/v1/avatar-session',
    );
    await page.click('#create button[type=submit]');
    const { sessionId, token } = await (await created).json();
    await page.waitForFunction(`${text('connection')} === 'CONNECTED'`, null, { timeout: 20_000 });
    await page.reload();
    let status = 0;
    for (let i = 0; i < 50 && status !== 410; i++) {
      status = (await stack.server.api(`/v1/avatar-session/${sessionId}/keep-alive`, { token, json: {} }))
        .status;
      if (status !== 410) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(410);
  });
});
