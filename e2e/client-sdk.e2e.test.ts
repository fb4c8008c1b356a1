/** The browser SDK served at /sdk/mouthpiece.js, used as a page would use it. */
import { describe, expect, it } from 'vitest';
import { useStack } from './harness/stack.js';
import type { Page } from 'playwright-core';
import { readMetrics } from './harness/server.js';

const stack = useStack();

const sdkPage = (): Promise<Page> => stack.browser.sdkPage(stack.server.url);

describe('AvatarSession in Chromium', () => {
  it('frontend-only: create → READY/CONNECTED, video plays, speech events in order, interrupt, end → ENDED/CLOSED', async () => {
    const page = await sdkPage();
    const r = await page.evaluate(
      async ({ baseUrl, credential }) => {
        const M = (window as unknown as { Mouthpiece: { AvatarSession: new (c: object) => any } }).Mouthpiece;
        const s = new M.AvatarSession({ baseUrl, credential, logLevel: 'warn' });
        const log: string[] = [];
        s.on('stateChange', (x: string) => log.push(`state:${x}`));
        s.on('connectionChange', (x: string) => log.push(`conn:${x}`));
        s.on('speakingStart', (e: { turnId: string }) => log.push(`start:${e.turnId}`));
        s.on('speakingEnd', (e: { turnId: string; interrupted: boolean }) =>
          log.push(`end:${e.turnId}:${e.interrupted}`),
        );
        s.on('videoReady', () => log.push('videoReady'));
        const sessionId = await s.createSession({
          avatarId: 'mei',
          voiceId: 'en-us-female',
          voiceSpeed: 1.2,
          videoContainerId: 'avatar',
        });
        (window as unknown as { s: unknown; log: string[] }).s = s;
        (window as unknown as { log: string[] }).log = log;
        const wait = async (pred: () => boolean, ms: number) => {
          const end = performance.now() + ms;
          while (performance.now() < end && !pred()) await new Promise((res) => setTimeout(res, 50));
          return pred();
        };
        await wait(() => log.includes('conn:CONNECTED') && log.includes('videoReady'), 15000);
        const video = document.querySelector('#avatar video') as HTMLVideoElement;
        const track = (video.srcObject as MediaStream).getAudioTracks()[0]!;
        const ctx = new AudioContext();
        const analyser = ctx.createAnalyser();
        ctx.createMediaStreamSource(new MediaStream([track])).connect(analyser);
        await ctx.resume();
        const buf = new Float32Array(analyser.fftSize);
        let peak = 0;
        const meter = setInterval(() => {
          analyser.getFloatTimeDomainData(buf);
          peak = Math.max(peak, Math.sqrt(buf.reduce((a, v) => a + v * v, 0) / buf.length));
        }, 20);
        const turn = await s.sayText('Hello from the browser library.', 'sdk-1');
        await wait(() => log.includes('end:sdk-1:false'), 15000);
        clearInterval(meter);
        log.push(`peak:${peak > 0.02 ? 'loud' : 'quiet'}`);
        await s.sayText(
          'This is a much longer sentence that will be interrupted before it can finish speaking.',
          'sdk-2',
        );
        await wait(() => log.includes('start:sdk-2'), 10000);
        await s.interrupt();
        await wait(() => log.includes('end:sdk-2:true'), 5000);
        const states = {
          session: s.getSessionState(),
          connection: s.getConnectionState(),
          width: video.videoWidth,
          playsinline: video.playsInline,
        };
        await s.endSession();
        return {
          sessionId,
          turn,
          log,
          states,
          after: { session: s.getSessionState(), connection: s.getConnectionState() },
        };
      },
      { baseUrl: stack.server.url, credential: stack.server.secret },
    );
    expect(r.states).toMatchObject({
      session: 'READY',
      connection: 'CONNECTED',
      width: 512,
      playsinline: true,
    });
    expect(r.turn).toBe('sdk-1');
    expect(r.log).toContain('peak:loud'); // the speech was heard through the SDK's own video element
    expect(r.log.slice(0, 2)).toEqual(['state:CREATING', 'conn:CONNECTING']);
    const idx = (x: string) => r.log.indexOf(x);
    expect(idx('state:READY')).toBeGreaterThan(0);
    expect(idx('start:sdk-1')).toBeLessThan(idx('end:sdk-1:false'));
    expect(idx('end:sdk-1:false')).toBeLessThan(idx('start:sdk-2'));
    expect(idx('start:sdk-2')).toBeLessThan(idx('end:sdk-2:true'));
    expect(r.after).toEqual({ session: 'ENDED', connection: 'CLOSED' });
    const sessions = await readMetrics(stack.server.url);
    expect(sessions).toMatch(/mouthpiece_sessions_ended_total\{reason="ended_by_client"\} [1-9]/);
  });

  it('backend-created: initSession with a token; server end → ENDED with SESSION_NOT_FOUND; bad config rejected', async () => {
    const { sessionId, token } = await stack.server.createSession({ visualConfig: { avatarId: 'amara' } });
    const page = await sdkPage();
    const r = await page.evaluate(
      async ({ baseUrl, sessionId, token }) => {
        const M = (
          window as unknown as {
            Mouthpiece: { AvatarSession: new (c: object) => any; ErrorCode: Record<string, string> };
          }
        ).Mouthpiece;
        let configError = '';
        try {
          new M.AvatarSession({});
        } catch (e) {
          configError = (e as { code: string }).code;
        }
        const s = new M.AvatarSession({ baseUrl, logLevel: 'error' });
        const errors: string[] = [];
        s.on('error', (e: { code: string }) => errors.push(e.code));
        let video = false;
        s.on('videoReady', () => (video = true));
        await s.initSession({ sessionId, token }, { videoContainerId: 'avatar' });
        const ready = s.getSessionState();
        const until = performance.now() + 15000;
        while (performance.now() < until && !video) await new Promise((res) => setTimeout(res, 50));
        await fetch(`${baseUrl}/v1/avatar-session/${sessionId}/end`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
        });
        const end = performance.now() + 15000;
        while (performance.now() < end && s.getSessionState() !== 'ENDED')
          await new Promise((res) => setTimeout(res, 50));
        let stateError = '';
        try {
          await s.sayText('too late');
        } catch (e) {
          stateError = (e as { code: string }).code;
        }
        return {
          configError,
          ready,
          ended: s.getSessionState(),
          errors,
          stateError,
          codes: Object.keys(M.ErrorCode),
        };
      },
      { baseUrl: stack.server.url, sessionId, token },
    );
    expect(r.configError).toBe('INVALID_CONFIGURATION');
    expect(r.ready).toBe('READY');
    expect(r.ended).toBe('ENDED');
    expect(r.errors).toContain('SESSION_NOT_FOUND');
    expect(r.stateError).toBe('INVALID_STATE');
    expect(r.codes.sort()).toEqual([
      'API_REQUEST_FAILED',
      'INVALID_CONFIGURATION',
      'INVALID_STATE',
      'RTC_CONNECTION_FAILED',
      'SESSION_NOT_FOUND',
      'UNAUTHORIZED',
    ]);
  });

  it('an ordinary end is quiet: no console error, no failed request (the WHEP DELETE is answered before /end)', async () => {
    const page = await sdkPage();
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    // what the page sent and what it was answered, in order
    const wire: string[] = [];
    const name = (url: string) => new URL(url).pathname.replace(/^\/v1\/avatar-session\/[^/]+/, '');
    page.on('request', (q) => wire.push(`${q.method()} ${name(q.url())}`));
    page.on('response', (a) => wire.push(`${a.status()} ${a.request().method()} ${name(a.url())}`));

    // the page ends its session (endSession)
    const ended = await page.evaluate(
      async ({ baseUrl, credential }) => {
        const M = (window as unknown as { Mouthpiece: { AvatarSession: new (c: object) => any } }).Mouthpiece;
        const s = new M.AvatarSession({ baseUrl, credential, logLevel: 'warn' });
        let video = false;
        s.on('videoReady', () => (video = true));
        await s.createSession({ avatarId: 'amara', videoContainerId: 'avatar' });
        const until = performance.now() + 15000;
        while (performance.now() < until && !(video && s.getConnectionState() === 'CONNECTED'))
          await new Promise((res) => setTimeout(res, 50));
        await s.endSession();
        await new Promise((res) => setTimeout(res, 500)); // anything sent late shows up too
        return s.getSessionState();
      },
      { baseUrl: stack.server.url, credential: stack.server.secret },
    );
    expect(ended).toBe('ENDED');
    const ownEnd = wire.splice(0);
    // the viewer's DELETE is answered 200 before /end is sent (after /end it would be a 410)
    const deleted = ownEnd.findIndex((w) => /^200 DELETE \/whep\/[\w-]+$/.test(w));
    expect(deleted, ownEnd.join('\n')).toBeGreaterThan(0);
    expect(ownEnd.indexOf('POST /end'), ownEnd.join('\n')).toBeGreaterThan(deleted);
    expect(ownEnd, ownEnd.join('\n')).toContain('200 POST /end');

    // a backend-created session the page shows
    const { sessionId, token } = await stack.server.createSession();
    await page.evaluate(
      async ({ baseUrl, sessionId, token }) => {
        const M = (window as unknown as { Mouthpiece: { AvatarSession: new (c: object) => any } }).Mouthpiece;
        const s = new M.AvatarSession({ baseUrl, logLevel: 'warn' });
        let video = false;
        s.on('videoReady', () => (video = true));
        await s.initSession({ sessionId, token }, { videoContainerId: 'avatar' });
        const until = performance.now() + 15000;
        while (performance.now() < until && !(video && s.getConnectionState() === 'CONNECTED'))
          await new Promise((res) => setTimeout(res, 50));
        (window as unknown as { theirs: unknown }).theirs = s;
      },
      { baseUrl: stack.server.url, sessionId, token },
    );
    // the backend ends the other session: the page hears it and asks nothing of a gone session
    const end = await fetch(`${stack.server.url}/v1/avatar-session/${sessionId}/end`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(end.status).toBe(200);
    expect(
      await page.evaluate(async () => {
        const s = (window as unknown as { theirs: any }).theirs;
        const until = performance.now() + 15000;
        while (performance.now() < until && s.getSessionState() !== 'ENDED')
          await new Promise((res) => setTimeout(res, 50));
        await new Promise((res) => setTimeout(res, 500));
        return s.getSessionState();
      }),
    ).toBe('ENDED');
    expect([...ownEnd, ...wire].filter((w) => /^[45]\d\d /.test(w))).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it('without data-channel events, speaking is detected from the received audio', async () => {
    const { sessionId, token } = await stack.server.createSession();
    const page = await sdkPage();
    const log = await page.evaluate(
      async ({ baseUrl, sessionId, token }) => {
        const s = new (window as any).Mouthpiece.AvatarSession({
          baseUrl,
          speakingDetection: 'audio',
          logLevel: 'error',
        });
        const log: string[] = [];
        s.on('speakingStart', (e: { turnId: string }) => log.push(`start:${e.turnId}`));
        s.on('speakingEnd', (e: { turnId: string }) => log.push(`end:${e.turnId}`));
        s.on('videoReady', () => log.push('video'));
        await s.initSession({ sessionId, token }, { videoContainerId: 'avatar' });
        const wait = async (pred: () => boolean, ms: number) => {
          const end = performance.now() + ms;
          while (performance.now() < end && !pred()) await new Promise((res) => setTimeout(res, 50));
        };
        await wait(() => log.includes('video'), 15000);
        await s.sayText('One sentence, spoken once, to be heard.', 'heard');
        await wait(() => log.includes('end:'), 15000);
        await s.endSession();
        return log;
      },
      { baseUrl: stack.server.url, sessionId, token },
    );
    expect(log).toContain('start:');
    expect(log.indexOf('start:')).toBeLessThan(log.indexOf('end:'));
    expect(log).not.toContain('start:heard'); // the channel's events were not used
  });
});
