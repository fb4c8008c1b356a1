/** The demo page at `/` (the README quickstart ends there), clicked through as a person would. */
import { describe, expect, it } from 'vitest';
import { useStack } from './harness/stack.js';

const stack = useStack();

const text = (id: string) => `document.getElementById('${id}')?.textContent`;

describe('the demo page', () => {
  it('opens a backend-created session from the URL hash, speaks, and ends', async () => {
    const { sessionId, token } = await stack.server.createSession({ visualConfig: { avatarId: 'jonas' } });
    const page = await stack.browser.context.newPage();
    await page.goto(`${stack.server.url}/#sessionId=${sessionId}&token=${token}`);
    await page.waitForFunction(
      `${text('state')} === 'READY' && ${text('connection')} === 'CONNECTED'`,
      null,
      { timeout: 20_000 },
    );
    await page.fill('#text', 'Papa bought a big bag of apples.');
    await page.click('#say button[type=submit]');
    await page.waitForFunction(`${text('speaking')} === 'speaking'`, null, { timeout: 15_000 });
    expect(await page.textContent('#latency')).toMatch(/say → speakingStart: \d+ ms/);
    await page.click('#end');
    await page.waitForFunction(`${text('state')} === 'ENDED'`, null, { timeout: 10_000 });
    expect(
      (await stack.server.api(`/v1/avatar-session/${sessionId}/keep-alive`, { token, json: {} })).status,
    ).toBe(410);
  });

  it('frontend-only: credential, catalog pickers, create, stream word by word, captions, interrupt', async () => {
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
  });
});
