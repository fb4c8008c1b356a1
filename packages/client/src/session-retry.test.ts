/**
 * A page retries on the same AvatarSession after ERROR (issue 32): a start refused (a revoked
 * token at init-client or at the WHEP offer) or a session given up on leaves ERROR, and the next
 * `initSession` with a good token reaches READY and CONNECTED on that object; the end a given-up
 * session still owes never moves the state of the start that came after it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AvatarSession } from './avatar-session.js';
import { FakePeer, installFakeBrowser, type Answer, type Call } from './testing/fake-browser.js';

const BASE = 'http://mp.test';
const OLD = 'O'.repeat(22);
const NEW = 'N'.repeat(22);
const REVOKED = { status: 401, body: { success: false, error: 'Invalid token', code: 'INVALID_TOKEN' } };
/** Where the revoked token is refused: init-client, or the WHEP offer. */
let refusedAt: 'init-client' | 'whep' = 'init-client';
/** The answer to the old session's /end, held until the test lets it go. */
let releaseEnd: () => void = () => undefined;

function server(call: Call): Answer | Promise<Answer> {
  const path = call.url.replace(BASE, '');
  const revoked = call.headers['authorization'] === 'Bearer revoked';
  const sid = path.split('/')[3];
  if (path.endsWith('/init-client'))
    return revoked && refusedAt === 'init-client'
      ? REVOKED
      : {
          status: 200,
          body: {
            success: true,
            whepUrl: `${BASE}/v1/avatar-session/${sid}/whep?vt=${revoked ? 'revoked' : 'v'}`,
            iceServers: [],
            idleTimeoutMs: 30_000,
          },
        };
  if (path.includes('/whep?') && call.method === 'POST')
    return path.includes('vt=revoked') // the SDK adds its offer's number (order=…) after it
      ? REVOKED
      : { status: 201, body: 'v=0\r\n', headers: { Location: `/v1/avatar-session/${sid}/whep/v1` } };
  if (path === `/v1/avatar-session/${OLD}/end`)
    return new Promise((resolve) => (releaseEnd = () => resolve({ status: 200, body: { success: true } })));
  return { status: 200, body: { success: true } };
}

let calls: Call[];
beforeEach(() => {
  vi.useFakeTimers();
  refusedAt = 'init-client';
  calls = installFakeBrowser(server).calls;
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function watched(): { s: AvatarSession; seen: string[] } {
  const s = new AvatarSession({ baseUrl: BASE, logLevel: 'error' });
  const seen: string[] = [];
  s.on('stateChange', (v) => seen.push(`state:${v}`));
  s.on('connectionChange', (v) => seen.push(`conn:${v}`));
  s.on('error', (e) => seen.push(`error:${e.code}`));
  return { s, seen };
}

/** initSession with the good token on the same object: READY, then CONNECTED once ICE connects. */
async function retried(s: AvatarSession, seen: string[]): Promise<void> {
  seen.length = 0;
  await s.initSession({ sessionId: NEW, token: 'good' });
  FakePeer.last!.set('connected');
  expect(seen).toEqual(['state:CREATING', 'conn:CONNECTING', 'state:READY', 'conn:CONNECTED']);
  expect([s.getSessionState(), s.getConnectionState(), s.getSessionId()]).toEqual([
    'READY',
    'CONNECTED',
    NEW,
  ]);
  await vi.advanceTimersByTimeAsync(7500);
  expect(calls.at(-1)).toMatchObject({
    url: `${BASE}/v1/avatar-session/${NEW}/keep-alive`,
    headers: { authorization: 'Bearer good' },
  });
}

describe('a start after ERROR, on the same object', () => {
  for (const [at, code] of [
    ['init-client', 'UNAUTHORIZED'],
    ['whep', 'RTC_CONNECTION_FAILED'],
  ] as const) {
    it(`a revoked token refused at ${at} → ERROR; initSession with a good one → READY and CONNECTED`, async () => {
      refusedAt = at;
      const { s, seen } = watched();
      await expect(s.initSession({ sessionId: OLD, token: 'revoked' })).rejects.toMatchObject({ code });
      expect(s.getSessionState()).toBe('ERROR');
      expect(seen.at(-1)).toBe('state:ERROR');
      await retried(s, seen);
    });
  }

  it('after giving up: a failed retry stays ERROR when the old end is answered, and the next one connects', async () => {
    const { s, seen } = watched();
    await s.initSession({ sessionId: OLD, token: 'old' });
    await vi.advanceTimersByTimeAsync(30_001); // no connection within 30 s: gives up, ends OLD once reachable
    expect([s.getSessionState(), s.getConnectionState()]).toEqual(['ERROR', 'FAILED']);
    await expect(s.initSession({ sessionId: NEW, token: 'revoked' })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    seen.length = 0;
    releaseEnd(); // the given-up session's end is answered now: it belongs to no current start
    await vi.advanceTimersByTimeAsync(100);
    expect(seen).toEqual([]);
    expect(s.getSessionState()).toBe('ERROR');
    await retried(s, seen);
  });
});
