/** examples/backend-pattern runs as its README says, its page plays the avatar, and it says what went wrong when it cannot. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { useStack } from './harness/stack.js';
import { freePort } from './harness/server.js';

const stack = useStack();
const EXAMPLE = fileURLToPath(new URL('../examples/backend-pattern/server.mjs', import.meta.url));
const running: ChildProcess[] = [];

afterEach(() => {
  for (const p of running.splice(0)) p.kill();
});

/** Starts the example as its README does; resolves once it answers on its port. */
async function startExample(env: Record<string, string>): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const proc = spawn(process.execPath, [EXAMPLE], {
    env: { ...process.env, PORT: String(port), ...env },
    stdio: 'ignore',
  });
  running.push(proc);
  const url = `http://${new URL(stack.server.url).hostname}:${port}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(url);
      return { url, proc };
    } catch (err) {
      if (i > 100 || proc.exitCode !== null) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

it('the example backend creates a session; its page plays the avatar view-only, seeing neither the credential nor the token, and Say speaks through the backend', async () => {
  const example = await startExample({
    MOUTHPIECE_URL: stack.server.url,
    MOUTHPIECE_CREDENTIAL: stack.server.secret,
  });
  const page = await stack.browser.context.newPage();
  // hold the page's POST /session so it is seen before the avatar arrives
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let handed: Record<string, unknown> = {};
  await page.route('**/session', async (route) => {
    await held;
    const res = await route.fetch();
    handed = (await res.json()) as Record<string, unknown>;
    await route.fulfill({ response: res });
  });
  await page.goto(`${example.url}/`);
  expect(await page.textContent('#status')).toBe('connecting…');
  release();
  await page.waitForFunction(
    () => document.querySelector<HTMLVideoElement>('#avatar video')?.videoWidth === 512,
    null,
    { timeout: 20_000 },
  );
  await page.waitForSelector('#status', { state: 'hidden' });
  expect(await page.content()).not.toContain(stack.server.secret);
  expect(Object.keys(handed).sort()).toEqual(['sessionId', 'viewerToken']); // never the session token
  const sessionId = String(handed['sessionId']);
  // the viewer token cannot make the avatar speak…
  const direct = await fetch(`${stack.server.url}/v1/avatar-session/${sessionId}/say-text`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${String(handed['viewerToken'])}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ text: 'anything' }),
  });
  expect(direct.status).toBe(403);
  // …the page's Say button asks the backend, which speaks with the token it kept
  const [said] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/say')),
    page.click('#say'),
  ]);
  expect(said.status()).toBe(200);
  expect(await said.json()).toMatchObject({ success: true, turnId: expect.any(String) as unknown });
  expect(await page.isVisible('#status')).toBe(false); // no error shown
});

it('answers 502 with what to do when Mouthpiece is down, stays up, and its page shows the error', async () => {
  const down = `http://${new URL(stack.server.url).hostname}:${await freePort()}`;
  const example = await startExample({ MOUTHPIECE_URL: down, MOUTHPIECE_CREDENTIAL: 'mp_whatever' });
  for (let i = 0; i < 2; i++) {
    const r = await fetch(`${example.url}/session`, { method: 'POST' });
    expect(r.status).toBe(502);
    expect(await r.json()).toEqual({
      error: expect.stringMatching(
        new RegExp(`^Mouthpiece is not reachable at ${down}: .*ECONNREFUSED.*\\. Start it with npm start$`),
      ),
    });
  }
  const page = await stack.browser.context.newPage();
  await page.goto(`${example.url}/`);
  await page.waitForSelector('#status.error');
  expect(await page.isVisible('#status')).toBe(true);
  expect(await page.textContent('#status')).toContain(`Mouthpiece is not reachable at ${down}`);
  await page.screenshot({ path: '.test-results/backend-example-down.png' });
  expect(example.proc.exitCode).toBe(null);
});

it("passes Mouthpiece's refusal on to its page with what to check", async () => {
  const example = await startExample({
    MOUTHPIECE_URL: stack.server.url,
    MOUTHPIECE_CREDENTIAL: 'mp_not_a_real_credential',
  });
  const r = await fetch(`${example.url}/session`, { method: 'POST' });
  expect(r.status).toBe(401);
  const body = await r.json();
  expect(body.error).toMatch(/^Mouthpiece refused to create a session \(401/);
  expect(body.error).toContain('MOUTHPIECE_CREDENTIAL');
  const page = await stack.browser.context.newPage();
  await page.goto(`${example.url}/`);
  await page.waitForSelector('#status.error');
  expect(await page.textContent('#status')).toContain('MOUTHPIECE_CREDENTIAL');
  expect(example.proc.exitCode).toBe(null);
});

it('without a credential it stops at once and names a command that makes one from the repository root', () => {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['MOUTHPIECE_CREDENTIAL'];
  const r = spawnSync(process.execPath, [EXAMPLE], { env, encoding: 'utf8', timeout: 10_000 });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('npx mouthpiece credentials create --name example');
});
