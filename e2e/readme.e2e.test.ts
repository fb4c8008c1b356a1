/**
 * The README's first hour, run literally: on a clean copy of the repository (as a fresh clone is
 * after `npm ci`), `npm start`, then the Quickstart shell block extracted from README.md and fed
 * step by step to one bash, as a person pastes it, with the page of step 4 opened in Chromium;
 * then the backend example's README the same way. No step is copied into this file, so an edit
 * that breaks the README breaks this test. npm's registry is pointed at a closed port: a command
 * that would look a package up on the public registry fails here.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './harness/browser.js';
import {
  cleanCheckout,
  fakeXdgOpen,
  npmStart,
  numberedSteps,
  REPO,
  ShellDriver,
  shellBlocks,
} from './harness/readme.js';
import { requireE2eEnvironment } from './harness/server.js';

const BASE = 'http://localhost:8080'; // the README's address: the default port
const jsonObjects = (s: string): Record<string, unknown>[] =>
  (s.match(/\{.*?\}(?=\{|\s*$)/gms) ?? []).map((j) => JSON.parse(j) as Record<string, unknown>);

describe('README, literally, on a clean checkout', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let xdg: ReturnType<typeof fakeXdgOpen>;
  let browser: TestBrowser;
  let server: Awaited<ReturnType<typeof npmStart>> | undefined;
  const shells: ShellDriver[] = [];
  const shell = (): ShellDriver => {
    const s = new ShellDriver(dir, env);
    shells.push(s);
    return s;
  };

  beforeAll(async () => {
    requireE2eEnvironment();
    dir = cleanCheckout();
    xdg = fakeXdgOpen();
    env = {
      PATH: `${xdg.binDir}:${process.env['PATH'] ?? ''}`,
      HOME: process.env['HOME'] ?? '/root',
      LANG: 'C.UTF-8',
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
    };
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    for (const s of shells) s.close();
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (xdg) rmSync(xdg.binDir, { recursive: true, force: true });
  }, 60_000);

  it('straight after npm ci, `npx mouthpiece` works from the repository root, builds first and writes ./data', async () => {
    expect(existsSync(join(dir, 'packages/server/dist'))).toBe(false);
    const r = await shell().run('npx mouthpiece credentials list --json', 180_000);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(r.stderr).toMatch(/building/);
    expect(existsSync(join(dir, 'data/mouthpiece.db'))).toBe(true);
    expect(existsSync(join(dir, 'packages/server/data'))).toBe(false);
  }, 240_000);

  it('npm start, then every step of the Quickstart answers as the README says', async () => {
    server = await npmStart(dir, env, BASE);
    const [block] = shellBlocks(join(REPO, 'README.md'), 'Quickstart');
    const steps = numberedSteps(block!);
    expect(steps.map((s) => s.n)).toEqual([1, 2, 3, 4, 5, 6]);
    const sh = shell();
    const run = async (n: number) => {
      const r = await sh.run(steps[n - 1]!.text);
      expect(r.status, `step ${n} (${steps[n - 1]!.title}): ${r.stderr}`).toBe(0);
      return r.stdout;
    };

    expect((await run(1)).trim()).toMatch(/^mp_[A-Za-z0-9]+_[A-Za-z0-9_-]{20,}$/);

    const [session] = jsonObjects(await run(2));
    expect(session).toMatchObject({ success: true });
    const { sessionId, token } = session as { sessionId: string; token: string };
    const vars = await sh.run('printf "%s %s" "$SID" "$TOKEN"');
    expect(vars.stdout).toBe(`${sessionId} ${token}`);

    const [init] = jsonObjects(await run(3));
    expect(init).toMatchObject({ success: true, idleTimeoutMs: 30_000 });
    expect(String(init!['whepUrl'])).toContain(`${BASE}/v1/avatar-session/${sessionId}/whep?vt=`);

    await run(4);
    const opened = xdg.opened();
    expect(opened).toEqual([`${BASE}/#sessionId=${sessionId}&token=${token}`]);
    const page = await browser.context.newPage();
    await page.goto(opened[0]!);
    await page.waitForFunction(
      () => (document.querySelector<HTMLVideoElement>('#avatar video')?.videoWidth ?? 0) > 0,
      null,
      { timeout: 20_000 },
    );

    expect(jsonObjects(await run(5))).toEqual([{ success: true, turnId: 't1' }]);
    await page.waitForSelector('#speaking.on', { timeout: 20_000 }); // the page hears it speak

    expect(jsonObjects(await run(6))).toEqual([{ success: true }, { success: true }, { success: true }]);
    await page.waitForFunction(() => document.querySelector('#state')?.textContent === 'ENDED', null, {
      timeout: 10_000,
    });
    const after = await fetch(`${BASE}/v1/avatar-session/${sessionId}/keep-alive`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(after.status).toBe(410);
    expect(await after.json()).toMatchObject({ code: 'SESSION_ENDED', reason: 'ended_by_client' });
    await page.close();
  }, 300_000);

  it("the backend example's README runs as written and its page plays the avatar", async () => {
    expect(server, 'the service from the Quickstart test').toBeDefined();
    const [block] = shellBlocks(join(REPO, 'examples/backend-pattern/README.md'), 'Run it');
    const sh = shell();
    sh.start(block!);
    await sh.waitFor(/example app on http:\/\/localhost:3000/, 60_000);
    const page = await browser.context.newPage();
    await page.goto('http://localhost:3000/');
    await page.waitForFunction(
      () => (document.querySelector<HTMLVideoElement>('#avatar video')?.videoWidth ?? 0) > 0,
      null,
      { timeout: 20_000 },
    );
    await page.close();
  }, 120_000);
});
