/**
 * ViewerLink on the fake browser: it reports through its own emitter, and a link closed while an
 * offer was under way opens again (a start after ERROR) without ever using the late transport of
 * that earlier offer — it is closed when it arrives, even though the link is CONNECTING again.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from './logger.js';
import { FakePeer, installFakeBrowser, type Answer, type Call } from './testing/fake-browser.js';
import { ViewerLink } from './viewer-link.js';

const BASE = 'http://mp.test';
/** The first offer's answer waits until the test lets it go; later ones are answered at once. */
let releaseFirst: () => void = () => undefined;
let offers = 0;

function server(call: Call): Answer | Promise<Answer> {
  if (call.method !== 'POST') return { status: 200, body: { success: true } };
  const n = ++offers;
  const answer = { status: 201, body: 'v=0\r\n', headers: { Location: `/v1/avatar-session/S/whep/v${n}` } };
  return n === 1 ? new Promise((resolve) => (releaseFirst = () => resolve(answer))) : answer;
}

let calls: Call[];
beforeEach(() => {
  vi.useFakeTimers();
  offers = 0;
  calls = installFakeBrowser(server).calls;
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function link(): { link: ViewerLink; seen: string[] } {
  const log = createLogger('error');
  const l = new ViewerLink({
    transportOptions: () => ({
      whepUrl: `${BASE}/v1/avatar-session/S/whep?vt=v`,
      iceServers: [],
      iceTransportPolicy: 'all',
      speakingDetection: 'auto',
      video: () => undefined,
      log,
    }),
    mayReconnect: () => true,
    deadline: () => Infinity,
    log,
  });
  const seen: string[] = [];
  l.on('connectionChange', ({ state }) => seen.push(`conn:${state}`));
  l.on('opened', () => seen.push('opened'));
  return { link: l, seen };
}

describe('ViewerLink', () => {
  it('closed during an offer, it connects again; the late transport of that offer is closed, never used', async () => {
    const { link: l, seen } = link();
    const first = l.connect(); // its offer is held
    await vi.advanceTimersByTimeAsync(10);
    const late = FakePeer.last!;
    await l.close();
    await l.connect(); // a start after ERROR: CLOSED → CONNECTING, a new offer answered at once
    const current = FakePeer.last!;
    expect(current).not.toBe(late);
    releaseFirst(); // the first offer's answer arrives now, the link CONNECTING again
    await first;
    await vi.advanceTimersByTimeAsync(10);
    expect(late.closed).toBe(true);
    expect(current.closed).toBe(false);
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual([
      `${BASE}/v1/avatar-session/S/whep/v1`,
    ]);
    current.set('connected');
    late.set('connected'); // a late event of the closed one reaches no one
    expect(seen).toEqual(['conn:CONNECTING', 'conn:CLOSED', 'conn:CONNECTING', 'opened', 'conn:CONNECTED']);
    expect(l.state).toBe('CONNECTED');
  });
});
