/**
 * The single-node HTTPS configurations of deploy/ (Caddyfile, nginx.conf), each run as the real
 * proxy (Debian's caddy and nginx) with a self-signed certificate for a test host name, in front
 * of a real `mouthpiece serve` with MOUTHPIECE_TRUST_PROXY=1. Through https only: a backend
 * creates a session; Chromium plays it over HTTP/2 (WHEP offer, trickle, end) and reads the event stream while the
 * avatar speaks a turn a backend streams over the audio WebSocket; a 199 MiB avatar upload reaches
 * the server whole and a 201 MiB one gets the server's own 413; the server's rate limit sees the
 * client's address, not the proxy's nor one the client wrote in X-Forwarded-For.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAudioStream, speechPcm, streamTurn } from './harness/audio-stream.js';
import { launchBrowser, type TestBrowser } from './harness/browser.js';
import {
  PROXIES,
  httpsRequest,
  lookupTo,
  makeCertificate,
  requireProxyTools,
  startProxy,
  type TestCertificate,
  type TestProxy,
} from './harness/https-proxy.js';
import { freePort, requireE2eEnvironment, startServer, type TestServer } from './harness/server.js';

const HOST = 'avatars.test';
/** Where the proxy listens and the page connects from: the test namespace's own address. */
const ADDRESS = process.env['MOUTHPIECE_E2E_NETNS'] === '1' ? '10.99.0.2' : '127.0.0.1';
const ADMIN = 'admin-token-for-the-https-proxy-e2e-test';
const MiB = 1024 * 1024;

type Win = {
  mpTest: {
    connect(o: { whepUrl: string }): Promise<{ status: number }>;
    stats(): Promise<{ framesDecoded: number; audioPackets: number }>;
    waitFor(pred: () => Promise<boolean> | boolean, ms?: number): Promise<boolean>;
    close(): Promise<void>;
  };
  sse: { status: number; type: string | null; text: string };
};

describe.each(PROXIES)('%s from deploy/ in front of a real server', (kind) => {
  let dir: string;
  let cert: TestCertificate;
  let server: TestServer;
  let proxy: TestProxy;
  let browser: TestBrowser;

  beforeAll(async () => {
    requireE2eEnvironment();
    requireProxyTools([kind]);
    dir = mkdtempSync(join(tmpdir(), 'mp-https-'));
    cert = makeCertificate(dir, HOST);
    const port = await freePort();
    server = await startServer({
      MOUTHPIECE_TRUST_PROXY: '1',
      MOUTHPIECE_PUBLIC_URL: `https://${HOST}:${port}`,
      MOUTHPIECE_ADMIN_TOKEN: ADMIN,
      MOUTHPIECE_AUTH_FAILURES_PER_SECOND: '1',
    });
    proxy = await startProxy(kind, {
      cert,
      serverPort: Number(new URL(server.url).port),
      port,
      address: ADDRESS,
    });
    browser = await launchBrowser({
      args: [
        `--host-resolver-rules=MAP ${HOST} ${ADDRESS}`,
        `--ignore-certificate-errors-spki-list=${cert.spki}`,
      ],
    });
  }, 90_000);
  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await proxy?.stop();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const backend = (
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: string },
  ) => httpsRequest(`${proxy.url}${path}`, { cert, address: ADDRESS }, init);

  it('a session played through it: HTTP/2, WHEP, the event stream while a streamed turn plays', async () => {
    const created = await backend('/v1/avatar-session', {
      method: 'POST',
      headers: { authorization: `KS ${server.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ visualConfig: { avatarId: 'amara' }, voiceConfig: { id: 'en-us-female' } }),
    });
    expect(created.status, created.text).toBe(200);
    const { sessionId, token } = JSON.parse(created.text) as { sessionId: string; token: string };
    const init = await backend(`/v1/avatar-session/${sessionId}/init-client`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const { whepUrl } = JSON.parse(init.text) as { whepUrl: string };
    expect(whepUrl.startsWith(`${proxy.url}/`)).toBe(true);

    const page = await browser.newPage(proxy.url);
    const eventsUrl = `${proxy.url}/v1/avatar-session/${sessionId}/events`;
    await page.evaluate(
      ([url, t]) => {
        const w = window as unknown as Win;
        w.sse = { status: 0, type: null, text: '' };
        void fetch(url, { headers: { authorization: `Bearer ${t}` } }).then(async (res) => {
          w.sse.status = res.status;
          w.sse.type = res.headers.get('content-type');
          const reader = res.body!.getReader();
          const text = new TextDecoder();
          for (;;) {
            const { value, done } = await reader.read();
            if (done) return;
            w.sse.text += text.decode(value, { stream: true });
          }
        });
      },
      [eventsUrl, token] as const,
    );
    const played = await page.evaluate(
      (url) => (window as unknown as Win).mpTest.connect({ whepUrl: url }),
      whepUrl,
    );
    expect(played.status).toBe(201);
    const decoding = await page.evaluate(() =>
      (window as unknown as Win).mpTest.waitFor(
        async () => (await (window as unknown as Win).mpTest.stats()).framesDecoded > 25,
        15_000,
      ),
    );
    expect(decoding).toBe(true);

    // a backend streams a turn over the audio WebSocket, upgraded through the proxy
    const c = await openAudioStream(proxy.url, sessionId, token, { ca: cert.pem, lookup: lookupTo(ADDRESS) });
    const speech = speechPcm();
    const sent = streamTurn(c, {
      turnId: 'p1',
      sampleRate: speech.sampleRate,
      pcm: Buffer.concat([speech.pcm, speech.pcm, speech.pcm]), // ≈ 5 s
      chunkMs: 40,
    });
    await c.waitFor((m) => m.type === 'playbackStarted');
    // the event stream is not held back by the proxy: the turn's start arrives while it plays
    const seenStart = await page.evaluate(() =>
      (window as unknown as Win).mpTest.waitFor(
        () => (window as unknown as Win).sse.text.includes('event: speakingStart\n'),
        10_000,
      ),
    );
    expect(seenStart).toBe(true);
    expect(c.messages.some((m) => m.type === 'playbackFinished')).toBe(false);
    await sent;
    const finished = await c.waitFor((m) => m.type === 'playbackFinished', 20_000);
    expect(finished).toMatchObject({ turnId: 'p1', interrupted: false });
    c.close();
    const sse = await page.evaluate(() => (window as unknown as Win).sse);
    expect(sse.status).toBe(200);
    expect(sse.type).toBe('text/event-stream; charset=utf-8');
    expect(sse.text).toContain('event: speakingEnd\n');
    const stats = await page.evaluate(() => (window as unknown as Win).mpTest.stats());
    expect(stats.audioPackets).toBeGreaterThan(100);

    // every call of the page went over HTTP/2: the page itself, the WHEP offer, the event stream
    const protocols = await page.evaluate(() => [
      ...performance
        .getEntriesByType('navigation')
        .map((e) => (e as PerformanceNavigationTiming).nextHopProtocol),
      ...performance
        .getEntriesByType('resource')
        .map((e) => (e as PerformanceResourceTiming).nextHopProtocol),
    ]);
    expect(protocols.length).toBeGreaterThanOrEqual(2);
    expect(new Set(protocols)).toEqual(new Set(['h2']));
    // trickle ICE (PATCH, application/trickle-ice-sdpfrag) and the end (DELETE) of the WHEP resource
    const resource = await page.evaluate(async () => {
      const location = (window as unknown as { mpTest: { location: string } }).mpTest.location;
      const patch = await fetch(location, {
        method: 'PATCH',
        headers: { 'content-type': 'application/trickle-ice-sdpfrag' },
        body: 'a=ice-ufrag:none\r\na=end-of-candidates\r\n',
      });
      const del = await fetch(location, { method: 'DELETE' });
      return { location, patch: patch.status, del: del.status };
    });
    expect(resource.location.startsWith(`${proxy.url}/`)).toBe(true);
    expect(resource).toMatchObject({ patch: 204, del: 200 });
    await page.close();
  }, 120_000);

  it('avatar-size uploads stream through whole: 199 MiB reaches the server, 201 MiB gets its own 413', async () => {
    const page = await browser.newPage(proxy.url);
    const upload = (id: string, bytes: number) =>
      page.evaluate(
        async ([id, bytes, admin]) => {
          const form = new FormData();
          form.append('id', id);
          form.append('name', 'Too big to be real');
          form.append('video', new Blob([new Uint8Array(bytes)], { type: 'video/mp4' }), 'clip.mp4');
          const res = await fetch('/admin/v1/avatars', {
            method: 'POST',
            headers: { authorization: `Bearer ${admin}` },
            body: form,
          });
          return { status: res.status, body: await res.text() };
        },
        [id, bytes, ADMIN] as const,
      );
    // all of it arrived: the server read the whole form, then found no video in the zeros
    const whole = await upload('almost-limit', 199 * MiB);
    expect(whole.status, whole.body).toBe(400);
    expect(JSON.parse(whole.body)).toMatchObject({ success: false, code: 'INVALID_VIDEO' });
    // over the limit: the server counted 200 MiB through the proxy before it answered
    const over = await upload('over-limit', 201 * MiB);
    expect(over.status, over.body).toBe(413);
    expect(JSON.parse(over.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(JSON.parse(over.body).error).toContain('the video is over 200');
    await page.close();
  }, 120_000);

  it("the server sees the client's address, not the proxy's nor one the client wrote", async () => {
    const page = await browser.newPage(proxy.url);
    const statuses = await page.evaluate(async (id) => {
      const out: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await fetch(`/v1/avatar-session/${id}/keep-alive`, {
          method: 'POST',
          headers: { authorization: 'Bearer not-a-token', 'x-forwarded-for': '203.0.113.9' },
        });
        out.push(res.status);
      }
      return out;
    }, 'not-a-session');
    expect(statuses.slice(0, 2)).toEqual([401, 401]);
    expect(statuses.slice(2)).toEqual([429, 429]);
    const limited = server.logs
      .join('')
      .split('\n')
      .filter((l) => l.includes('rate limited after failed authentications'))
      .map((l) => (JSON.parse(l) as { ip: string }).ip);
    expect(limited.length).toBeGreaterThan(0);
    expect(new Set(limited)).toEqual(new Set([ADDRESS]));
    await page.close();
  }, 60_000);
});
