/**
 * `disconnect()` on the fake browser: the page stops showing the session — its WHEP viewer
 * DELETEd, keep-alives and the pagehide end gone — and the session is never ended, with a token or
 * a viewer token; a new AvatarSession then opens the same session again. A disconnect while the
 * start is under way stops it: nothing is left behind (docs/client.md "Disconnecting").
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AvatarSession } from './avatar-session.js';
import { FakePeer, installFakeBrowser, type Answer, type Call } from './testing/fake-browser.js';

const BASE = 'http://mp.test';
const SID = 'S'.repeat(22);
const TOKEN = 'T'.repeat(22);
const VT = 'V'.repeat(22);

/** Answers held back until the test releases them, by path suffix. */
let held: Map<string, (a: Answer) => void>;
let hold: Set<string>;
let viewers: number;

function server(call: Call): Answer | Promise<Answer> {
  const path = call.url.replace(`${BASE}/v1/avatar-session/${SID}`, '');
  const answer = (): Answer => {
    if (path === '/init-client')
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
    if (path.startsWith('/whep') && call.method === 'POST') {
      viewers += 1;
      return {
        status: 201,
        body: 'v=0\r\n',
        headers: { Location: `/v1/avatar-session/${SID}/whep/v${viewers}` },
      };
    }
    return { status: 200, body: { success: true } };
  };
  const key = `${call.method} ${path.replace(/\?.*/, '')}`;
  if (!hold.has(key)) return answer();
  return new Promise((resolve) => held.set(key, () => resolve(answer())));
}

let calls: Call[];
beforeEach(() => {
  vi.useFakeTimers();
  held = new Map();
  hold = new Set();
  viewers = 0;
  calls = installFakeBrowser(server).calls;
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const sent = (from = 0) =>
  calls
    .slice(from)
    .map((c) => `${c.method} ${c.url.replace(`${BASE}/v1/avatar-session/${SID}`, '').replace(/\?.*/, '')}`);

async function showing(access: { token: string } | { viewerToken: string }): Promise<AvatarSession> {
  const s = new AvatarSession({ baseUrl: BASE, logLevel: 'error' });
  await s.initSession({ sessionId: SID, ...access });
  FakePeer.last!.set('connected');
  return s;
}

/** The page goes away: every pagehide listener still registered hears it. */
function pageHide(): void {
  type Mocked = { mock: { calls: Array<[string, () => void]> } };
  const w = window as unknown as { addEventListener: Mocked; removeEventListener: Mocked };
  const removed = new Set(w.removeEventListener.mock.calls.map(([, handler]) => handler));
  for (const [name, handler] of w.addEventListener.mock.calls)
    if (name === 'pagehide' && !removed.has(handler)) handler();
}

describe('disconnect()', () => {
  for (const [kind, access] of [
    ['token', { token: TOKEN }],
    ['viewer token', { viewerToken: VT }],
  ] as const) {
    it(`with a ${kind}: DELETEs its viewer, stops keep-alives, sends no end; a new AvatarSession plays the session again`, async () => {
      const s = await showing(access);
      await vi.advanceTimersByTimeAsync(8000);
      expect(sent()).toEqual(['POST /init-client', 'POST /whep', 'POST /keep-alive']);
      await s.disconnect();
      expect(s.getSessionState()).toBe('ENDED');
      expect(s.getConnectionState()).toBe('CLOSED');
      expect(sent().at(-1)).toBe('DELETE /whep/v1');
      expect(FakePeer.last!.closed).toBe(true);
      const n = calls.length;
      pageHide(); // a page going away after its disconnect ends nothing either
      await vi.advanceTimersByTimeAsync(60_000);
      expect(sent(n)).toEqual([]);

      const again = await showing(access);
      expect(again.getSessionState()).toBe('READY');
      expect(again.getConnectionState()).toBe('CONNECTED');
      await vi.advanceTimersByTimeAsync(8000);
      expect(sent(n)).toEqual(['POST /init-client', 'POST /whep', 'POST /keep-alive']);
      expect(calls.at(-1)!.headers['authorization']).toBe(`Bearer ${'token' in access ? TOKEN : VT}`);
      expect(sent().filter((c) => c.endsWith('/end'))).toEqual([]);
    });
  }

  it('during init-client: the start rejects (INVALID_STATE), and no viewer or keep-alive follows', async () => {
    hold.add('POST /init-client');
    const s = new AvatarSession({ baseUrl: BASE, logLevel: 'error' });
    const started = s.initSession({ sessionId: SID, token: TOKEN }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await vi.advanceTimersByTimeAsync(0);
    const disconnected = s.disconnect();
    held.get('POST /init-client')!({ status: 200 });
    await disconnected;
    expect(await started).toMatchObject({ code: 'INVALID_STATE' });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent()).toEqual(['POST /init-client']);
    expect(s.getSessionState()).toBe('ENDED');
  });

  it('during the WHEP offer: resolves only once the late viewer is DELETEd; no keep-alive follows', async () => {
    hold.add('POST /whep');
    const s = new AvatarSession({ baseUrl: BASE, logLevel: 'error' });
    const started = s.initSession({ sessionId: SID, viewerToken: VT }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(0);
    expect(sent()).toEqual(['POST /init-client', 'POST /whep']);
    let done = false;
    const disconnected = s.disconnect().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(false); // the offer is still out: its viewer may yet be made
    held.get('POST /whep')!({ status: 201 });
    await disconnected;
    expect(sent()).toEqual(['POST /init-client', 'POST /whep', 'DELETE /whep/v1']);
    expect(await started).toMatchObject({ code: 'INVALID_STATE' });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent()).toHaveLength(3);
  });

  it('endSession() still ends the session (the viewer DELETEd first, then end)', async () => {
    const s = await showing({ token: TOKEN });
    await s.endSession();
    expect(sent().slice(-2)).toEqual(['DELETE /whep/v1', 'POST /end']);
  });
});
