import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AvatarSession } from './avatar-session.js';
import { FakePeer, installFakeBrowser, type Call } from './testing/fake-browser.js';

const BASE = 'http://mp.test';
const SID = 'S'.repeat(22);
let keepAliveStatus = 200;
let idleTimeoutMs: number | undefined = 30_000;
let trickleIce: boolean | undefined;
/** How the WHEP resource's DELETE is answered: at once with 200 unless a test says otherwise. */
/** Held while a test keeps the WHEP offer's answer back; resolved when it lets it go. */
let offerHeld: Promise<void> = Promise.resolve();
let deleteAnswer: () => Promise<{ status: number; body?: unknown }> | { status: number; body?: unknown };

function server(call: Call) {
  const path = call.url.replace(BASE, '');
  if (call.method === 'DELETE') return deleteAnswer();
  if (path === '/v1/avatar-session')
    return { status: 200, body: { success: true, sessionId: SID, token: 'tok' } };
  if (path.endsWith('/init-client')) {
    return {
      status: 200,
      body: {
        success: true,
        whepUrl: `${BASE}/v1/avatar-session/${SID}/whep?vt=v`,
        turn: { url: 'mp.test', username: 'u', credential: 'c', urls: [] },
        iceServers: [],
        ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
        ...(trickleIce === undefined ? {} : { trickleIce }),
      },
    };
  }
  if (path.includes('/whep') && call.method === 'POST') {
    return offerHeld.then(() => ({
      status: 201,
      body: 'v=0\r\n',
      headers: {
        Location: `/v1/avatar-session/${SID}/whep/viewer1`,
        'Accept-Patch': 'application/trickle-ice-sdpfrag',
      },
    }));
  }
  if (path.endsWith('/keep-alive'))
    return {
      status: keepAliveStatus,
      body:
        keepAliveStatus === 200
          ? { success: true }
          : { success: false, error: 'Session ended', code: 'SESSION_ENDED' },
    };
  return { status: call.method === 'PATCH' ? 204 : 200, body: { success: true } };
}

let calls: Call[];
beforeEach(() => {
  vi.useFakeTimers();
  keepAliveStatus = 200;
  idleTimeoutMs = 30_000;
  trickleIce = undefined;
  deleteAnswer = () => ({ status: 200, body: { success: true } });
  offerHeld = Promise.resolve();
  calls = installFakeBrowser(server).calls;
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

async function started(
  config: Partial<ConstructorParameters<typeof AvatarSession>[0]> = {},
): Promise<{ s: AvatarSession; events: string[] }> {
  const s = new AvatarSession({ baseUrl: BASE, credential: 'mp_x', logLevel: 'error', ...config });
  const events: string[] = [];
  s.on('stateChange', (v) => events.push(`state:${v}`));
  s.on('connectionChange', (v) => events.push(`conn:${v}`));
  s.on('error', (e) => events.push(`error:${e.code}${e.details ? ` ${JSON.stringify(e.details)}` : ''}`));
  s.on('speakingStart', (e) => events.push(`start:${e.turnId}`));
  s.on('speakingEnd', (e) => events.push(`end:${e.turnId}:${e.interrupted}`));
  await s.createSession({ avatarId: 'amara' });
  FakePeer.last!.set('connected');
  return { s, events };
}

describe('AvatarSession (fake browser, fake timers)', () => {
  it("init-client's trickleIce: the WHEP offer goes before ICE gathering ends; without it (an older server) the offer waits for gathering", async () => {
    FakePeer.gatheringAtStart = 'gathering';
    const whepPosts = (): number =>
      calls.filter((c) => c.url.includes('/whep?') && c.method === 'POST').length;
    for (const [announced, postedAt100Ms] of [
      [true, 1],
      [undefined, 0],
    ] as const) {
      trickleIce = announced;
      calls.length = 0;
      const s = new AvatarSession({ baseUrl: BASE, credential: 'mp_x', logLevel: 'error' });
      const starting = s.createSession({ avatarId: 'amara' });
      await vi.advanceTimersByTimeAsync(100);
      expect(whepPosts()).toBe(postedAt100Ms);
      await vi.advanceTimersByTimeAsync(1500); // gathering's bound (whep-client.ts)
      await starting;
      expect(whepPosts()).toBe(1);
      await s.disconnect();
    }
  });

  it('creates, initialises, POSTs the offer to whepUrl and reaches READY/CONNECTED', async () => {
    const { s, events } = await started();
    expect(calls.map((c) => `${c.method} ${c.url.replace(BASE, '')}`)).toEqual([
      'POST /v1/avatar-session',
      `POST /v1/avatar-session/${SID}/init-client`,
      expect.stringMatching(new RegExp(`^POST /v1/avatar-session/${SID}/whep\\?vt=v&order=\\w+\\.1$`)),
    ]);
    expect(calls[0]!.headers['authorization']).toBe('KS mp_x');
    expect(calls[1]!.headers['authorization']).toBe('Bearer tok');
    expect(calls[2]!.headers['content-type']).toBe('application/sdp');
    expect(events).toEqual(['state:CREATING', 'conn:CONNECTING', 'state:READY', 'conn:CONNECTED']);
    expect(s.getSessionId()).toBe(SID);
  });

  it('sends a keep-alive every 10 s, or every quarter of the idle timeout: 7.5 s for 30 s', async () => {
    idleTimeoutMs = undefined;
    await started();
    await vi.advanceTimersByTimeAsync(30_500);
    expect(calls.filter((c) => c.url.endsWith('/keep-alive'))).toHaveLength(3);
  });

  it('a 30 s idle timeout gets a keep-alive every 7.5 s', async () => {
    await started();
    await vi.advanceTimersByTimeAsync(30_500);
    expect(calls.filter((c) => c.url.endsWith('/keep-alive'))).toHaveLength(4);
  });

  it('a keep-alive answered 410 ends the session with SESSION_NOT_FOUND and stops the timer', async () => {
    const { s, events } = await started();
    keepAliveStatus = 410;
    await vi.advanceTimersByTimeAsync(10_500);
    expect(s.getSessionState()).toBe('ENDED');
    expect(s.getConnectionState()).toBe('CLOSED');
    expect(events.some((e) => e.startsWith('error:SESSION_NOT_FOUND'))).toBe(true);
    const n = calls.length;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(calls.filter((c) => c.url.endsWith('/keep-alive')).length).toBe(
      calls.slice(0, n).filter((c) => c.url.endsWith('/keep-alive')).length,
    );
  });

  it('trickles late candidates by PATCH to the WHEP resource, and endSession DELETEs it and ends', async () => {
    const { s } = await started();
    FakePeer.last!.candidate({ candidate: 'candidate:1 1 udp 1 127.0.0.2 5000 typ host', sdpMid: '0' });
    await vi.advanceTimersByTimeAsync(0);
    const patch = calls.find((c) => c.method === 'PATCH');
    expect(patch?.url).toBe(`${BASE}/v1/avatar-session/${SID}/whep/viewer1`);
    expect(patch?.body).toContain('a=candidate:1 1 udp');
    await s.endSession();
    expect(calls.some((c) => c.method === 'DELETE' && c.url.endsWith('/whep/viewer1'))).toBe(true);
    expect(calls.at(-1)!.url).toBe(`${BASE}/v1/avatar-session/${SID}/end`);
    expect(FakePeer.last!.closed).toBe(true);
    expect(s.getSessionState()).toBe('ENDED');
  });

  it('endSession sends /end only once the WHEP DELETE is answered (sent together, /end won and the DELETE was a 410)', async () => {
    const { s } = await started();
    let answer!: (a: { status: number }) => void;
    deleteAnswer = () => new Promise((r) => (answer = r));
    const ending = s.endSession();
    await vi.advanceTimersByTimeAsync(500);
    const sent = () =>
      calls.map((c) => `${c.method} ${c.url.replace(`${BASE}/v1/avatar-session/${SID}`, '')}`);
    expect(sent().slice(-1)).toEqual(['DELETE /whep/viewer1']); // no /end yet
    expect(s.getSessionState()).toBe('ENDED'); // the page is told at once
    answer({ status: 200 });
    await ending;
    expect(sent().slice(-2)).toEqual(['DELETE /whep/viewer1', 'POST /end']);
  });

  it('endSession: a DELETE answered 404 or 410 is done too; one never answered holds /end 2 s at most', async () => {
    for (const status of [404, 410]) {
      const { s, events } = await started();
      deleteAnswer = () => ({
        status,
        body: { success: false, error: 'Session ended', code: 'SESSION_ENDED' },
      });
      await s.endSession();
      expect(calls.at(-1)!.url).toBe(`${BASE}/v1/avatar-session/${SID}/end`);
      expect(events.filter((e) => e.startsWith('error:'))).toEqual([]);
    }
    const { s } = await started();
    deleteAnswer = () => new Promise(() => undefined);
    let done = false;
    const ending = s.endSession().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(1900);
    expect(done).toBe(false);
    expect(calls.at(-1)!.method).toBe('DELETE');
    await vi.advanceTimersByTimeAsync(200);
    await ending;
    expect(calls.at(-1)!.url).toBe(`${BASE}/v1/avatar-session/${SID}/end`);
  });

  it('a session the server ended (sessionEnded, or a keep-alive 410) sends no DELETE of its viewer', async () => {
    const { s } = await started();
    serverSays({ type: 'sessionEnded', reason: 'ended_by_client' });
    expect(s.getSessionState()).toBe('ENDED');
    keepAliveStatus = 410;
    const other = await started();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(other.s.getSessionState()).toBe('ENDED');
    expect(calls.filter((c) => c.method === 'DELETE')).toEqual([]);
    expect(FakePeer.last!.closed).toBe(true);
  });

  it('no connection within 30 s → FAILED, ERROR and RTC_CONNECTION_FAILED; gives up: ends the session, no more keep-alives', async () => {
    const s = new AvatarSession({ baseUrl: BASE, credential: 'mp_x', logLevel: 'error' });
    const seen: string[] = [];
    s.on('error', (e) => seen.push(e.code));
    s.on('stateChange', (v) => seen.push(`state:${v}`));
    s.on('connectionChange', (v) => seen.push(`conn:${v}`));
    await s.createSession({ avatarId: 'amara' });
    await vi.advanceTimersByTimeAsync(30_001);
    expect(seen.slice(-5)).toEqual([
      'conn:FAILED',
      'state:ERROR',
      'RTC_CONNECTION_FAILED',
      'state:ENDED', // the end the SDK sent was answered
      'conn:CLOSED',
    ]);
    expect(calls.at(-1)!.url).toBe(`${BASE}/v1/avatar-session/${SID}/end`);
    const n = calls.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls.length).toBe(n);
  });

  it('methods reject with INVALID_STATE before the session is ready', async () => {
    const s = new AvatarSession({ baseUrl: BASE, logLevel: 'error' });
    await expect(s.sayText('hi')).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await expect(s.createSession({ avatarId: 'amara' })).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
    });
    expect(() => new AvatarSession({} as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
    );
  });

  it('keeps alive every min(10 s, idleTimeoutMs / 4): a 4 s idle timeout gets one a second', async () => {
    idleTimeoutMs = 4000;
    await started();
    await vi.advanceTimersByTimeAsync(3500);
    expect(calls.filter((c) => c.url.endsWith('/keep-alive'))).toHaveLength(3);
  });

  it('every speakingStart gets exactly one speakingEnd: duplicates dropped, open turns end on end', async () => {
    const { s, events } = await started();
    serverSays({ type: 'speakingStart', turnId: 't1' });
    serverSays({ type: 'speakingEnd', turnId: 't1', interrupted: false });
    serverSays({ type: 'speakingEnd', turnId: 't1', interrupted: false });
    serverSays({ type: 'speakingStart', turnId: 't2' });
    await s.endSession();
    serverSays({ type: 'speakingEnd', turnId: 't2', interrupted: false });
    expect(events.filter((e) => /^(start|end):/.test(e))).toEqual([
      'start:t1',
      'end:t1:false',
      'start:t2',
      'end:t2:true',
    ]);
  });

  it('turnFailed: an error event naming the turn and reason; the session and connection live on', async () => {
    const { s, events } = await started();
    serverSays({ type: 'speakingStart', turnId: 't1' });
    serverSays({ type: 'speakingEnd', turnId: 't1', interrupted: false });
    serverSays({ type: 'turnFailed', turnId: 't1', reason: 'timeout' });
    serverSays({ type: 'turnFailed', turnId: 't2', reason: 'unauthorized' });
    expect(events.filter((e) => /^(start|end|error):/.test(e))).toEqual([
      'start:t1',
      'end:t1:false',
      'error:API_REQUEST_FAILED {"code":"TURN_FAILED","turnId":"t1","reason":"timeout"}',
      'error:API_REQUEST_FAILED {"code":"TURN_FAILED","turnId":"t2","reason":"unauthorized"}',
    ]);
    expect(s.getSessionState()).toBe('READY');
    expect(s.getConnectionState()).toBe('CONNECTED');
  });

  it('a dropped connection invents no interrupt: the turn stays open while the SDK reconnects', async () => {
    const { events } = await started();
    serverSays({ type: 'speakingStart', turnId: 't1' });
    FakePeer.last!.set('failed');
    expect(events.filter((e) => e.startsWith('end:'))).toEqual([]);
  });

  it('pagehide while speaking ends the turn and, by default, the session (beacon)', async () => {
    const { events } = await started();
    serverSays({ type: 'speakingStart', turnId: 't1' });
    pageHide();
    expect(events).toContain('end:t1:true');
    expect(calls.at(-1)!.url).toBe(`${BASE}/v1/avatar-session/${SID}/end`);
  });

  it('endOnPageHide: false leaves the session alive when the page goes away', async () => {
    await started({ endOnPageHide: false });
    pageHide();
    expect(calls.some((c) => c.url.endsWith('/end'))).toBe(false);
  });

  it('a reconnect replaces the connection whole: the old one is DELETEd and its late events are ignored', async () => {
    const { s, events } = await started();
    const old = FakePeer.last!;
    serverSays({ type: 'speakingStart', turnId: 't1' });
    old.set('failed');
    await vi.advanceTimersByTimeAsync(0);
    const current = FakePeer.last!;
    expect(current).not.toBe(old);
    expect(old.closed).toBe(true);
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual([
      `${BASE}/v1/avatar-session/${SID}/whep/viewer1`,
    ]);
    current.set('connected');
    // the old connection, late: a state, a speaking turn, even an end; none reaches the page
    old.set('failed');
    old.set('connected');
    serverSays({ type: 'speakingStart', turnId: 't2' }, old);
    serverSays({ type: 'sessionEnded', reason: 'ended_by_admin' }, old);
    await vi.advanceTimersByTimeAsync(0);
    expect(FakePeer.all).toHaveLength(2); // no second reconnect
    expect(s.getSessionState()).toBe('READY');
    serverSays({ type: 'speakingStart', turnId: 't3' }); // the new connection speaks
    expect(events.slice(4)).toEqual(['start:t1', 'conn:CONNECTING', 'conn:CONNECTED', 'start:t3']);
  });

  it('a connection still opening when the session ends is closed when it arrives, never used', async () => {
    const { s, events } = await started();
    let release!: () => void;
    offerHeld = new Promise((r) => (release = r));
    FakePeer.last!.set('failed'); // a reconnect starts; its offer waits for an answer
    await vi.advanceTimersByTimeAsync(0);
    const opening = FakePeer.last!;
    await s.endSession();
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(opening.closed).toBe(true);
    opening.set('connected');
    expect(s.getConnectionState()).toBe('CLOSED');
    expect(events.filter((e) => e.startsWith('conn:')).slice(-2)).toEqual(['conn:CONNECTING', 'conn:CLOSED']);
  });

  it('replaced: another page took the session; this one closes with REPLACED and stops for good', async () => {
    const { s, events } = await started();
    serverSays({ type: 'speakingStart', turnId: 't1' });
    serverSays({ type: 'replaced' });
    expect(s.getConnectionState()).toBe('CLOSED');
    expect(s.getSessionState()).toBe('ENDED');
    expect(events).toContain('end:t1:true');
    expect(events).toContain('error:RTC_CONNECTION_FAILED {"code":"REPLACED"}');
    const before = calls.length;
    FakePeer.last!.set('failed'); // its old connection dying must not start a reconnect
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls.slice(before).map((c) => c.url)).toEqual([]); // no keep-alive, no WHEP, no end
    expect(listenerCalls('removeEventListener').some(([name]) => name === 'pagehide')).toBe(true);
  });
});

function serverSays(message: object, peer = FakePeer.last!): void {
  peer.channel.receive(JSON.stringify(message));
}

function listenerCalls(method: 'addEventListener' | 'removeEventListener'): Array<[string, () => void]> {
  const w = window as unknown as Record<typeof method, { mock: { calls: Array<[string, () => void]> } }>;
  return w[method].mock.calls;
}

function pageHide(): void {
  const handler = listenerCalls('addEventListener')
    .filter(([name]) => name === 'pagehide')
    .at(-1)?.[1];
  if (!handler) throw new Error('no pagehide listener');
  handler();
}
