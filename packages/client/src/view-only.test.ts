/**
 * A view-only page (`initSession({ sessionId, viewerToken })`) on the fake browser: it opens the
 * session with the viewer token (init-client, WHEP, keep-alives, the pack of `render: 'client'`);
 * sayText, sayAudio, interrupt and endSession reject with ViewOnlyError before any request; a
 * page going away, giving up after an outage, or `disconnect()` ends nothing on the server.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AvatarSession } from './avatar-session.js';
import { ViewOnlyError } from './errors.js';
import { FakePeer, installFakeBrowser, type Call } from './testing/fake-browser.js';

const BASE = 'http://mp.test';
const SID = 'S'.repeat(22);
const VT = 'V'.repeat(22);

function server(call: Call) {
  const path = call.url.replace(BASE, '');
  if (path.endsWith('/init-client'))
    return {
      status: 200,
      body: {
        success: true,
        whepUrl: `${BASE}/v1/avatar-session/${SID}/whep?vt=${VT}`,
        turn: { url: 'mp.test', username: 'u', credential: 'c', urls: [] },
        iceServers: [],
        idleTimeoutMs: 30_000,
      },
    };
  if (path.endsWith('/avatar'))
    return {
      status: 200,
      body: { success: true, avatar: { id: 'x', render: 'sprites', manifest: {}, files: [] } },
    };
  if (path.includes('/whep') && call.method === 'POST')
    return { status: 201, body: 'v=0\r\n', headers: { Location: `/v1/avatar-session/${SID}/whep/viewer1` } };
  if (path.endsWith('/say-text')) return { status: 200, body: { success: true, turnId: 't1' } };
  return { status: 200, body: { success: true } };
}

let calls: Call[];
beforeEach(() => {
  vi.useFakeTimers();
  calls = installFakeBrowser(server).calls;
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

/** The requests sent, as `METHOD path` (a WHEP offer's number, `&order=…`, left out). */
const sent = () =>
  calls.map(
    (c) =>
      `${c.method} ${c.url.replace(`${BASE}/v1/avatar-session/${SID}`, '').replace(/&order=[\w.]+$/, '')}`,
  );

async function viewing(config: { render?: 'client'; connect?: boolean } = {}): Promise<AvatarSession> {
  const s = new AvatarSession({
    baseUrl: BASE,
    logLevel: 'error',
    ...(config.render ? { render: 'client' } : {}),
  });
  await s.initSession({ sessionId: SID, viewerToken: VT });
  if (config.connect !== false) FakePeer.last!.set('connected');
  return s;
}

describe('a view-only page', () => {
  it('opens the session with the viewer token: init-client, WHEP and keep-alives', async () => {
    const s = await viewing();
    expect(s.viewOnly).toBe(true);
    expect(s.getSessionState()).toBe('READY');
    expect(s.getConnectionState()).toBe('CONNECTED');
    await vi.advanceTimersByTimeAsync(8000);
    expect(sent()).toEqual(['POST /init-client', `POST /whep?vt=${VT}`, 'POST /keep-alive']);
    expect(calls[0]!.headers['authorization']).toBe(`Bearer ${VT}`);
    expect(calls[2]!.headers['authorization']).toBe(`Bearer ${VT}`);
  });

  it('sayText, sayAudio, interrupt and endSession reject with ViewOnlyError and send nothing', async () => {
    const s = await viewing();
    const before = calls.length;
    const attempts: Array<[string, () => Promise<unknown>]> = [
      ['sayText', () => s.sayText('hello')],
      ['sayAudio', () => s.sayAudio(new Blob([new Uint8Array(8)]), 't1', 1)],
      ['interrupt', () => s.interrupt()],
      ['endSession', () => s.endSession()],
    ];
    for (const [call, attempt] of attempts) {
      const err = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, call).toBeInstanceOf(ViewOnlyError);
      expect(err).toMatchObject({ code: 'UNAUTHORIZED', details: { code: 'VIEW_ONLY' } });
      expect((err as Error).message).toMatch(
        new RegExp(`^view-only session: ${call} needs the session token`),
      );
    }
    expect(calls.slice(before)).toEqual([]);
    // nothing stopped: still watching
    expect(s.getSessionState()).toBe('READY');
    expect(s.getConnectionState()).toBe('CONNECTED');
    expect(FakePeer.last!.closed).toBe(false);
  });

  it('the page going away ends nothing (no /end beacon, whatever endOnPageHide says)', async () => {
    await viewing();
    const handler = (
      window as unknown as { addEventListener: { mock: { calls: Array<[string, () => void]> } } }
    ).addEventListener.mock.calls
      .filter(([name]) => name === 'pagehide')
      .at(-1)![1];
    handler();
    await vi.advanceTimersByTimeAsync(0);
    expect(sent().filter((c) => c.endsWith('/end'))).toEqual([]);
  });

  it('disconnect() stops watching (its WHEP resource DELETEd, no more keep-alives) and ends nothing', async () => {
    const s = await viewing();
    await s.disconnect();
    expect(s.getSessionState()).toBe('ENDED');
    expect(s.getConnectionState()).toBe('CLOSED');
    expect(sent().at(-1)).toBe('DELETE /whep/viewer1');
    const n = calls.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls.length).toBe(n);
  });

  it('a lost connection is reconnected with the viewer token (a probe keep-alive, a new offer)', async () => {
    const s = await viewing();
    const before = calls.length;
    FakePeer.last!.set('failed');
    await vi.advanceTimersByTimeAsync(0);
    FakePeer.last!.set('connected');
    expect(s.getConnectionState()).toBe('CONNECTED');
    const after = calls.slice(before);
    expect(sent().slice(before)).toEqual(expect.arrayContaining(['POST /keep-alive', `POST /whep?vt=${VT}`]));
    for (const c of after.filter((c) => c.url.endsWith('/keep-alive')))
      expect(c.headers['authorization']).toBe(`Bearer ${VT}`);
    expect(after.some((c) => c.url.endsWith('/end'))).toBe(false);
  });

  it('giving up after no connection for 30 s ends nothing on the server', async () => {
    const s = await viewing({ connect: false });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(s.getSessionState()).toBe('ERROR');
    expect(sent().filter((c) => c.endsWith('/end'))).toEqual([]);
  });

  it("render: 'client' loads the pack with the viewer token", async () => {
    await viewing({ render: 'client' });
    const pack = calls.find((c) => c.url.endsWith('/avatar'));
    expect(pack?.headers['authorization']).toBe(`Bearer ${VT}`);
  });

  it('a token beside the viewer token gives full control (a page handed the whole create answer)', async () => {
    const s = new AvatarSession({ baseUrl: BASE, logLevel: 'error' });
    await s.initSession({ sessionId: SID, token: 'tok', viewerToken: VT });
    FakePeer.last!.set('connected');
    expect(s.viewOnly).toBe(false);
    expect(await s.sayText('hello')).toBe('t1');
    expect(calls.at(-1)!.headers['authorization']).toBe('Bearer tok');
  });

  it('neither token: INVALID_CONFIGURATION naming both, and nothing sent', async () => {
    const s = new AvatarSession({ baseUrl: BASE, logLevel: 'error' });
    await expect(
      s.initSession({ sessionId: SID } as { sessionId: string; token: string }),
    ).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
      message: expect.stringContaining('viewerToken') as unknown,
    });
    expect(calls).toEqual([]);
  });
});
