/**
 * The SDK through network outages (issue 21), on a fake browser and fake timers: a network that
 * goes down (requests fail at once) or drops packets (requests hang), and comes back.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AvatarSession } from './avatar-session.js';
import { FakePeer, installFakeBrowser, type Answer, type Call } from './testing/fake-browser.js';

const BASE = 'http://mp.test';
const SID = 'S'.repeat(22);
/** up: the server answers; down: requests fail at once; blackhole: requests never get an answer. */
let network: 'up' | 'down' | 'blackhole' = 'up';
/** What the server says of the session: alive, or ended (410 with a reason). */
let ended: string | undefined;
let calls: Call[];

function server(call: Call): Answer | Promise<Answer> {
  if (network === 'down') return Promise.reject(new TypeError('Failed to fetch'));
  if (network === 'blackhole') return new Promise<Answer>(() => undefined);
  const path = call.url.replace(BASE, '');
  if (ended !== undefined && call.method === 'POST' && path !== '/v1/avatar-session')
    return {
      status: 410,
      body: { success: false, error: 'Session ended', code: 'SESSION_ENDED', reason: ended },
    };
  if (path === '/v1/avatar-session')
    return { status: 200, body: { success: true, sessionId: SID, token: 'tok' } };
  if (path.endsWith('/init-client'))
    return {
      status: 200,
      body: {
        success: true,
        whepUrl: `${BASE}/v1/avatar-session/${SID}/whep?vt=v`,
        iceServers: [],
        idleTimeoutMs: 30_000,
      },
    };
  if (path.includes('/whep?') && call.method === 'POST')
    return {
      status: 201,
      body: 'v=0\r\n',
      headers: { Location: `/v1/avatar-session/${SID}/whep/v${calls.length}` },
    };
  return { status: 200, body: { success: true } };
}

beforeEach(() => {
  vi.useFakeTimers();
  network = 'up';
  ended = undefined;
  calls = installFakeBrowser(server).calls;
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

async function started(config: { endOnPageHide?: boolean } = {}) {
  const s = new AvatarSession({ baseUrl: BASE, credential: 'mp_x', logLevel: 'error', ...config });
  const events: string[] = [];
  s.on('stateChange', (v) => events.push(`state:${v}`));
  s.on('connectionChange', (v) => events.push(`conn:${v}`));
  s.on('reconnecting', (e) => events.push(`reconnecting:${e.attempt}`));
  s.on('error', (e) => events.push(`error:${e.code}${e.details ? ` ${JSON.stringify(e.details)}` : ''}`));
  s.on('speakingStart', (e) => events.push(`start:${e.turnId}`));
  s.on('speakingEnd', (e) => events.push(`end:${e.turnId}:${e.interrupted}`));
  s.on('speakingResumed', (e) => events.push(`resumed:${e.turnId}`));
  await s.createSession({ avatarId: 'amara' });
  FakePeer.last!.set('connected');
  events.length = 0;
  return { s, events };
}

const count = (what: string, from = 0): number =>
  calls.slice(from).filter((c) => c.url.includes(what)).length;
const says = (m: object, peer = FakePeer.last!): void => peer.channel.receive(JSON.stringify(m));
/** The new peer of a reconnect connects once its offer was answered. */
async function connectNewPeer(before: FakePeer): Promise<FakePeer> {
  for (let i = 0; i < 100 && (FakePeer.last === before || FakePeer.last!.closed); i++)
    await vi.advanceTimersByTimeAsync(100);
  const p = FakePeer.last!;
  p.set('connected');
  await vi.advanceTimersByTimeAsync(0);
  return p;
}

describe('AvatarSession through an outage', () => {
  it('a 20 s outage mid-turn: CONNECTING and retries, keep-alives every second, then back at once; the turn resumes (no invented interrupt)', async () => {
    const { s, events } = await started();
    says({ type: 'speakingStart', turnId: 't1' });
    const old = FakePeer.last!;
    network = 'down';
    old.set('disconnected');
    const from = calls.length;
    await vi.advanceTimersByTimeAsync(20_000);
    expect(s.getConnectionState()).toBe('CONNECTING');
    expect(count('/keep-alive', from)).toBeGreaterThanOrEqual(18); // retried every second, not every 7.5 s
    expect(count('/whep?', from)).toBeGreaterThanOrEqual(6);
    network = 'up';
    await vi.advanceTimersByTimeAsync(1000); // the next keep-alive is answered → an attempt at once
    const current = await connectNewPeer(old);
    says({ type: 'hello', sessionId: SID, protocol: 1, speaking: 't1' }, current);
    says({ type: 'speakingEnd', turnId: 't1', interrupted: false }, current);
    expect(s.getConnectionState()).toBe('CONNECTED');
    expect(s.getSessionState()).toBe('READY');
    const shown = events.filter((e) => !e.startsWith('error:') && !/^reconnecting:(?!1$)/.test(e));
    expect(shown).toEqual([
      'start:t1',
      'conn:CONNECTING',
      'reconnecting:1',
      'conn:CONNECTED',
      'resumed:t1',
      'end:t1:false',
    ]);
    expect(events.filter((e) => e.startsWith('error:'))).toHaveLength(1); // one keep-alive error, not twenty
  });

  it('a hello after a reconnect: a turn that ended meanwhile ends (not interrupted), one that began meanwhile starts', async () => {
    const { events } = await started();
    says({ type: 'speakingStart', turnId: 't1' });
    const old = FakePeer.last!;
    old.set('failed');
    const current = await connectNewPeer(old);
    says({ type: 'hello', sessionId: SID, protocol: 1, speaking: 't2' }, current);
    expect(events.filter((e) => /^(start|end|resumed):/.test(e))).toEqual([
      'start:t1',
      'end:t1:false',
      'start:t2',
    ]);
  });

  it('a WHEP offer that hangs (packets dropped) is abandoned after 8 s and retried', async () => {
    const { s } = await started();
    network = 'blackhole';
    FakePeer.last!.set('disconnected');
    await vi.advanceTimersByTimeAsync(100);
    const hung = FakePeer.last!;
    await vi.advanceTimersByTimeAsync(8000);
    expect(hung.closed).toBe(true);
    network = 'up';
    await vi.advanceTimersByTimeAsync(5000);
    expect(FakePeer.last).not.toBe(hung);
    FakePeer.last!.set('connected');
    expect(s.getConnectionState()).toBe('CONNECTED');
  });

  it('requests sent into a blackhole hang: probes (one a second) find the way back, and the hung offer is replaced at once', async () => {
    const { s } = await started();
    network = 'blackhole';
    FakePeer.last!.set('disconnected');
    await vi.advanceTimersByTimeAsync(100);
    const hung = FakePeer.last!; // its offer went into the blackhole: no answer will come
    const from = calls.length;
    await vi.advanceTimersByTimeAsync(3400);
    expect(count('/keep-alive', from)).toBeGreaterThanOrEqual(3); // probes, each abandoned after 1 s
    expect(count('/keep-alive', from)).toBeLessThanOrEqual(4); // at most one a second
    network = 'up';
    const back = calls.length;
    await vi.advanceTimersByTimeAsync(1000); // the next probe is answered: the offer goes again at once
    expect(hung.closed).toBe(true);
    expect(count('/whep?', back)).toBe(1);
    expect(FakePeer.last).not.toBe(hung);
    FakePeer.last!.set('connected');
    expect(s.getConnectionState()).toBe('CONNECTED');
    // numbered offers: the server refuses the given-up one if it arrives after this one
    const orders = calls
      .filter((c) => c.url.includes('/whep?'))
      .map((c) => new URL(c.url).searchParams.get('order') ?? '');
    const page = orders[0]!.split('.')[0]!;
    expect(page).toMatch(/^\w+$/);
    expect(orders).toEqual(orders.map((_, i) => `${page}.${i + 1}`));
    const after = calls.length;
    await vi.advanceTimersByTimeAsync(7000);
    expect(count('/keep-alive', after)).toBeLessThanOrEqual(1); // connected: keep-alives at their interval
  });

  it('an answered offer whose ICE does not connect is replaced after 2 s (4 × the first connection, at least 2 s), not after 10 s', async () => {
    await started(); // its first connection took no time
    FakePeer.last!.set('failed');
    await vi.advanceTimersByTimeAsync(100);
    const silent = FakePeer.last!; // answered, but ICE never connects
    const from = calls.length;
    await vi.advanceTimersByTimeAsync(2000);
    expect(silent.closed).toBe(true);
    await vi.advanceTimersByTimeAsync(1000); // the next attempt after its back-off
    expect(count('/whep?', from)).toBe(1);
    const next = FakePeer.last!;
    expect(next).not.toBe(silent);
    await vi.advanceTimersByTimeAsync(3000); // the second miss waits twice as long
    expect(next.closed).toBe(false);
  });

  it('a video stall (no packets for 1.5 s) starts a reconnect: CONNECTED is not kept while nothing flows', async () => {
    const { s, events } = await started();
    const peer = FakePeer.last!;
    peer.stats.set('v', { type: 'inbound-rtp', kind: 'video', packetsReceived: 100 });
    await vi.advanceTimersByTimeAsync(600);
    await vi.advanceTimersByTimeAsync(2500); // no new packets since
    expect(events).toContain('conn:CONNECTING');
    expect(peer.closed).toBe(true);
    await connectNewPeer(peer);
    expect(s.getConnectionState()).toBe('CONNECTED');
  });

  it('the server says 410 while reconnecting: ENDED with its reason, no more attempts', async () => {
    const { s, events } = await started();
    ended = 'max_duration';
    FakePeer.last!.set('failed');
    await vi.advanceTimersByTimeAsync(100);
    expect(s.getSessionState()).toBe('ENDED');
    expect(s.getConnectionState()).toBe('CLOSED');
    expect(events).toContain(
      'error:SESSION_NOT_FOUND {"status":410,"code":"SESSION_ENDED","reason":"max_duration"}',
    );
    const n = calls.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls.length).toBe(n);
  });

  it('longer than the idle timeout: gives up (FAILED, ERROR), sends no more keep-alives, and ends the session once reachable', async () => {
    const { s, events } = await started();
    says({ type: 'speakingStart', turnId: 't1' });
    network = 'down';
    FakePeer.last!.set('disconnected');
    await vi.advanceTimersByTimeAsync(31_000);
    expect(s.getConnectionState()).toBe('CONNECTING'); // the session may still live (idle 30 s + 2 s slack)
    await vi.advanceTimersByTimeAsync(1_500);
    expect(s.getConnectionState()).toBe('FAILED');
    expect(s.getSessionState()).toBe('ERROR');
    expect(events).toContain('error:RTC_CONNECTION_FAILED {"code":"GAVE_UP"}');
    expect(events).toContain('end:t1:true'); // nothing more of it will be heard
    const n = calls.length;
    ended = 'idle_timeout';
    await vi.advanceTimersByTimeAsync(10_000);
    network = 'up';
    await vi.advanceTimersByTimeAsync(3_000);
    expect(calls.slice(n).filter((c) => c.url.includes('/keep-alive'))).toEqual([]);
    expect(calls.slice(n).filter((c) => c.url.includes('/whep'))).toEqual([]);
    expect(calls.at(-1)!.url).toBe(`${BASE}/v1/avatar-session/${SID}/end`);
    expect(s.getSessionState()).toBe('ENDED');
    expect(events.at(-1)).toBe(
      'error:SESSION_NOT_FOUND {"status":410,"code":"SESSION_ENDED","reason":"idle_timeout"}',
    );
    const m = calls.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls.length).toBe(m);
  });

  it('endOnPageHide: false: a given-up session is not ended by the page', async () => {
    const { s } = await started({ endOnPageHide: false });
    network = 'down';
    FakePeer.last!.set('disconnected');
    await vi.advanceTimersByTimeAsync(33_000);
    expect(s.getSessionState()).toBe('ERROR');
    network = 'up';
    const n = calls.length;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(calls.slice(n)).toEqual([]);
  });

  it("the browser's online event sends a keep-alive at once (and tries the connection again)", async () => {
    await started();
    network = 'down';
    FakePeer.last!.set('disconnected');
    await vi.advanceTimersByTimeAsync(1200);
    network = 'up';
    const n = calls.length;
    online();
    await vi.advanceTimersByTimeAsync(0);
    expect(
      calls.slice(n).map((c) =>
        c.url
          .replace(BASE, '')
          .replace(SID, ':id')
          .replace(/&order=.*/, ''),
      ),
    ).toEqual(
      expect.arrayContaining(['/v1/avatar-session/:id/keep-alive', '/v1/avatar-session/:id/whep?vt=v']),
    );
  });

  it('interrupt() ends the open turns as interrupted once the server took it (its own speakingEnd may be lost)', async () => {
    const { s, events } = await started();
    says({ type: 'speakingStart', turnId: 't1' });
    await s.interrupt();
    says({ type: 'speakingEnd', turnId: 't1', interrupted: true });
    expect(events.filter((e) => e.startsWith('end:'))).toEqual(['end:t1:true']);
  });
});

function online(): void {
  const w = window as unknown as { addEventListener: { mock: { calls: Array<[string, () => void]> } } };
  const handler = w.addEventListener.mock.calls.filter(([name]) => name === 'online').at(-1)?.[1];
  if (!handler) throw new Error('no online listener');
  handler();
}
