/** examples/backend-pattern runs as its README says and its page shows the avatar via initSession. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { useStack } from './harness/stack.js';
import { freePort } from './harness/server.js';

const stack = useStack();

it('the example backend creates a session and its page plays the avatar without ever seeing the credential', async () => {
  const port = await freePort();
  const example = spawn(
    process.execPath,
    [fileURLToPath(new URL('../examples/backend-pattern/server.mjs', import.meta.url))],
    {
      env: {
        ...process.env,
        PORT: String(port),
        MOUTHPIECE_URL: stack.server.url,
        MOUTHPIECE_CREDENTIAL: stack.server.secret,
      },
      stdio: 'ignore',
    },
  );
  try {
    const host = new URL(stack.server.url).hostname;
    const page = await stack.browser.context.newPage();
    for (let i = 0; i < 50; i++) {
      try {
        await page.goto(`http://${host}:${port}/`);
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await page.waitForFunction(
      () => document.querySelector<HTMLVideoElement>('#avatar video')?.videoWidth === 512,
      null,
      { timeout: 20_000 },
    );
    expect(await page.content()).not.toContain(stack.server.secret);
  } finally {
    example.kill();
  }
});
