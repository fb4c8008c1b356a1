/**
 * The SDK under network conditions: relay-only through managed coturn, retry on a 503 from a
 * proxy, keep-alive carrying a session past the idle timeout, and an MP3 upload.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useStack } from './harness/stack.js';

const turnPort = 40_000 + (process.pid % 5000);
const stack = useStack({
  MOUTHPIECE_TURN: 'managed',
  MOUTHPIECE_TURN_ALLOW_LOOPBACK: '1',
  MOUTHPIECE_TURN_PORT: String(turnPort),
  MOUTHPIECE_TURN_HOST: '127.0.0.1',
  MOUTHPIECE_SESSION_IDLE_TIMEOUT_MS: '12000',
});

/** A proxy in front of the server that answers the first create with 503 + Retry-After. */
let proxy: http.Server;
let proxyUrl = '';
const creates: number[] = [];
beforeAll(async () => {
  proxy = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/v1/avatar-session' && creates.push(Date.now()) === 1) {
      res.writeHead(503, {
        'Content-Type': 'application/json',
        'Retry-After': '0',
        'Access-Control-Allow-Origin': '*',
      });
      res.end(JSON.stringify({ success: false, error: 'Server is at capacity', code: 'SERVER_BUSY' }));
      return;
    }
    const target = new URL(req.url ?? '/', stack.server.url);
    const up = http.request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    req.pipe(up);
  });
  const host = new URL(stack.server.url).hostname;
  await new Promise<void>((r) => proxy.listen(0, host, () => r()));
  proxyUrl = `http://${host}:${(proxy.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => proxy.close(() => r())));

const sdkPage = (): Promise<Page> => stack.browser.sdkPage(stack.server.url);

describe('AvatarSession on the network', () => {
  it('retries a create answered 503, then connects relay-only through TURN and speaks an uploaded MP3', async () => {
    const page = await sdkPage();
    const mp3 = readFileSync(
      new URL('../packages/engine/test-fixtures/audio/speech-44k.mp3', import.meta.url),
    ).toString('base64');
    const r = await page.evaluate(
      async ({ baseUrl, credential, mp3 }) => {
        const M = (window as any).Mouthpiece;
        const s = new M.AvatarSession({
          baseUrl,
          credential,
          iceTransportPolicy: 'relay',
          retry: { initialDelayMs: 50 },
          logLevel: 'error',
        });
        const log: string[] = [];
        s.on('speakingStart', (e: { turnId: string }) => log.push(`start:${e.turnId}`));
        s.on('videoReady', () => log.push('video'));
        await s.createSession({ avatarId: 'jonas', videoContainerId: 'avatar' });
        const wait = async (pred: () => boolean, ms: number) => {
          const end = performance.now() + ms;
          while (performance.now() < end && !pred()) await new Promise((res) => setTimeout(res, 50));
          return pred();
        };
        await wait(() => log.includes('video'), 20000);
        const bytes = Uint8Array.from(atob(mp3), (c) => c.charCodeAt(0));
        await s.sayAudio(new Blob([bytes], { type: 'audio/mpeg' }), 'mp3-1', 1.6);
        await wait(() => log.includes('start:mp3-1'), 10000);
        const state = { session: s.getSessionState(), connection: s.getConnectionState() };
        await s.endSession();
        return { log, state };
      },
      { baseUrl: proxyUrl, credential: stack.server.secret, mp3 },
    );
    expect(creates.length).toBe(2); // the 503, then the retry
    expect(r.state).toEqual({ session: 'READY', connection: 'CONNECTED' });
    expect(r.log).toContain('video');
    expect(r.log).toContain('start:mp3-1');
  });

  it('keep-alives (every 3 s for a 12 s idle timeout) carry a session past it', async () => {
    const { sessionId, token } = await stack.server.createSession();
    const page = await sdkPage();
    await page.evaluate(
      async ({ baseUrl, sessionId, token }) => {
        const s = new (window as any).Mouthpiece.AvatarSession({ baseUrl, logLevel: 'error' });
        await s.initSession({ sessionId, token }, { videoContainerId: 'avatar' });
        (window as any).s = s;
      },
      { baseUrl: stack.server.url, sessionId, token },
    );
    await page.waitForTimeout(25_000);
    expect(await page.evaluate(() => (window as any).s.getSessionState())).toBe('READY');
    expect(
      (await stack.server.api(`/v1/avatar-session/${sessionId}/keep-alive`, { token, json: {} })).status,
    ).toBe(200);
    const other = await stack.server.createSession();
    await new Promise((r) => setTimeout(r, 13_000));
    // without keep-alives, the same server ends a session after the idle timeout
    expect(
      (
        await stack.server.api(`/v1/avatar-session/${other.sessionId}/keep-alive`, {
          token: other.token,
          json: {},
        })
      ).status,
    ).toBe(410);
  }, 90_000);
});
