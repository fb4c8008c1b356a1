/**
 * TURN relay through managed coturn (the browser may use relay candidates only) and failure
 * isolation (a killed engine process ends only its own sessions; the server keeps serving).
 */
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './harness/browser.js';
import {
  freePort,
  requireE2eEnvironment,
  startServer,
  type TestServer,
  readMetrics,
} from './harness/server.js';

let server: TestServer | undefined;
let browser: TestBrowser | undefined;
afterEach(async () => {
  await browser?.close();
  await server?.stop();
  browser = undefined;
  server = undefined;
});

describe('TURN and failures', () => {
  it('connects relay-only through managed coturn and decodes frames', async () => {
    requireE2eEnvironment();
    const turnPort = await freePort();
    server = await startServer({
      MOUTHPIECE_TURN: 'managed',
      MOUTHPIECE_TURN_ALLOW_LOOPBACK: '1',
      MOUTHPIECE_TURN_PORT: String(turnPort),
      MOUTHPIECE_TURN_HOST: '127.0.0.1',
      MOUTHPIECE_TURN_LISTEN_IP: '127.0.0.1',
    });
    browser = await launchBrowser();
    const { sessionId, token } = await server.createSession();
    const init = await server.initClient(sessionId, token);
    expect(init.turn.urls).toContain(`turn:127.0.0.1:${turnPort}?transport=udp`);
    const page = await browser.newPage(server.url);
    const r = await page.evaluate(
      ({ whepUrl, iceServers }) => window.mpTest.connect({ whepUrl, iceServers, relay: true }),
      { whepUrl: init.whepUrl, iceServers: init.iceServers },
    );
    expect(r.status).toBe(201);
    expect(
      await page.evaluate(() =>
        window.mpTest.waitFor(async () => (await window.mpTest.stats()).framesDecoded >= 10, 20000),
      ),
    ).toBe(true);
    const stats = await page.evaluate(() => window.mpTest.stats());
    expect(stats.candidateType).toBe('relay');
  });

  it('a killed engine process ends only its own sessions (410) and the server keeps serving', async () => {
    requireE2eEnvironment();
    server = await startServer({ MOUTHPIECE_ENGINE_PROCESSES: '2' });
    const a = await server.createSession();
    const b = await server.createSession();
    const engines = execFileSync('pgrep', ['-P', String(server.proc.pid), '-f', 'engine-main'], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .map(Number);
    expect(engines).toHaveLength(2);
    process.kill(engines[0]!, 'SIGKILL');
    const status = async (s: { sessionId: string; token: string }) =>
      (await server!.api(`/v1/avatar-session/${s.sessionId}/keep-alive`, { token: s.token, json: {} }))
        .status;
    let codes: number[] = [];
    for (let i = 0; i < 50; i++) {
      codes = [await status(a), await status(b)];
      if (codes.includes(410)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(codes.sort()).toEqual([200, 410]);
    // the dead process is replaced and new sessions work
    let created = false;
    for (let i = 0; i < 50 && !created; i++) {
      try {
        const c = await server.createSession();
        created = (await status(c)) === 200;
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    expect(created).toBe(true);
    expect(server.proc.exitCode).toBeNull();
    const metrics = await readMetrics(server.url);
    expect(metrics).toMatch(/mouthpiece_sessions_ended_total\{reason="engine_failed"\} 1/);
  });

  it('the SDK of a page whose engine process dies reports the end (engine_failed) as the video stalls', async () => {
    requireE2eEnvironment();
    // keep-alives every 10 s: an end reported sooner came from the stall, not from the schedule
    server = await startServer({
      MOUTHPIECE_ENGINE_PROCESSES: '1',
      MOUTHPIECE_SESSION_IDLE_TIMEOUT_MS: '120000',
    });
    browser = await launchBrowser();
    const page = await browser.sdkPage(server.url);
    const consoleLines: string[] = [];
    page.on('console', (m) => consoleLines.push(m.text()));
    const connected = await page.evaluate(
      async ({ baseUrl, credential }) => {
        const M = (window as unknown as { Mouthpiece: { AvatarSession: new (c: object) => any } }).Mouthpiece;
        const s = new M.AvatarSession({ baseUrl, credential, logLevel: 'warn' });
        const errors: Array<{ code: string; message: string }> = [];
        let video = false;
        s.on('error', (e: { code: string; message: string }) => errors.push(e));
        s.on('videoReady', () => (video = true));
        await s.createSession({ avatarId: 'amara', videoContainerId: 'avatar' });
        Object.assign(window, { s, errors });
        const end = performance.now() + 15000;
        while (performance.now() < end && !(video && s.getConnectionState() === 'CONNECTED'))
          await new Promise((r) => setTimeout(r, 50));
        return video && s.getConnectionState() === 'CONNECTED';
      },
      { baseUrl: server.url, credential: server.secret },
    );
    expect(connected).toBe(true);
    const [engine] = execFileSync('pgrep', ['-P', String(server.proc.pid), '-f', 'engine-main'], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .map(Number);
    process.kill(engine!, 'SIGKILL');
    const after = await page.evaluate(async () => {
      const w = window as unknown as { s: any; errors: Array<{ code: string; message: string }> };
      const end = performance.now() + 9000;
      while (performance.now() < end && w.s.getSessionState() !== 'ENDED')
        await new Promise((r) => setTimeout(r, 50));
      return { state: w.s.getSessionState() as string, errors: w.errors };
    });
    expect(after.state).toBe('ENDED');
    expect(after.errors).toContainEqual(
      expect.objectContaining({ code: 'SESSION_NOT_FOUND', message: expect.stringMatching(/engine_failed/) }),
    );
    expect(consoleLines.some((l) => l.includes('video stalled'))).toBe(true);
  });
});
