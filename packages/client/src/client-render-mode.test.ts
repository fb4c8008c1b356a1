/**
 * `render: 'client'` in AvatarSession, on the fake browser: the offer asks for no video, the pack
 * is loaded first, animation frames are drawn on the canvas and the first drawn one sends `ready`;
 * a kind this SDK cannot draw, a pack that does not load and the server's notice fall back to
 * video with `renderFallback`; stalled animation reconnects, still drawing; a lost canvas context
 * draws nothing until restored, then the current frame, and one never restored falls back to video.
 */
import { encodeAnimationFrame, type AnimationFrame } from '@mouthpiece/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AvatarSession } from './avatar-session.js';
import { STALL_MS } from './media-watchdog.js';
import { CONTEXT_RESTORE_MS } from './render/context-loss.js';
import { FakeCanvas, FakePeer, installFakeBrowser, type Call } from './testing/fake-browser.js';

const BASE = 'http://mp.test';
const SID = 'S'.repeat(22);
const VECTOR = {
  id: 'amara',
  render: 'vector',
  background: { top: '#e9eef5', bottom: '#b9c6d8' },
  skin: { tone: '#7a4a32', shadow: '#5c3524', blush: '#9a5340' },
  face: { width: 0.5, length: 0.52, jaw: 0.45, chin: 0.45 },
  hair: { style: 'afro', color: '#1f1612', highlight: '#3a2a22' },
  eyes: { iris: '#3b2416', shape: 'almond', size: 0.55 },
  brows: { color: '#1f1612', thickness: 0.5 },
  lips: { color: '#8e4a44', thickness: 0.75 },
  nose: { width: 0.65 },
  clothing: { style: 'tshirt', color: '#e8735a', accent: '#f4a48f' },
  beard: { style: 'none', color: '#1f1612' },
  accessories: { glasses: false, earrings: true },
};
let pack: { status: number; body?: unknown };

function server(call: Call) {
  const path = call.url.replace(BASE, '');
  if (path === '/v1/avatar-session')
    return { status: 200, body: { success: true, sessionId: SID, token: 'tok' } };
  if (path.endsWith('/init-client'))
    return {
      status: 200,
      body: {
        success: true,
        whepUrl: `${BASE}/v1/avatar-session/${SID}/whep?vt=v`,
        turn: { url: 'mp.test', username: 'u', credential: 'c', urls: [] },
        iceServers: [],
        idleTimeoutMs: 30_000,
      },
    };
  if (path.endsWith('/avatar')) return pack;
  if (path.includes('/whep') && call.method === 'POST')
    return { status: 201, body: 'v=0\r\n', headers: { Location: `/v1/avatar-session/${SID}/whep/viewer1` } };
  return { status: 200, body: { success: true } };
}

const listing = (render: string, manifest: object) => ({
  status: 200,
  body: { success: true, avatar: { id: 'x', render, manifest, files: [] } },
});

const frame = (sampleIndex: number, open = 0): AnimationFrame => ({
  sampleIndex,
  speaking: open > 0,
  mouth: { open, width: 0.5, round: 0, teeth: 0, lipBite: 0, tongue: 0 },
  motion: { blink: 0, headX: 0, headY: 0, tilt: 0, breath: 0, brow: 0, gazeX: 0, gazeY: 0 },
});
const send = (peer: FakePeer, f: AnimationFrame) =>
  peer.channel.receive(encodeAnimationFrame(f).slice().buffer);
/** Calls on the page's canvas (the avatar was drawn on it). */
const drawn = () => FakeCanvas.elements.at(-1)!.counter.calls;
/** Sends frames `from` on, one every 40 ms, for `ms`. */
async function feed(peer: FakePeer, from: number, ms: number): Promise<void> {
  for (let i = 0; i < ms / 40; i++) {
    send(peer, frame((from + i) * 1920, 0.5));
    await vi.advanceTimersByTimeAsync(40);
  }
}
const readies = (peer: FakePeer) => peer.channel.sent.filter((m) => JSON.parse(m).type === 'ready').length;

let calls: Call[];
beforeEach(() => {
  vi.useFakeTimers();
  pack = listing('vector', VECTOR);
  calls = installFakeBrowser(server).calls;
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

async function started(render?: string) {
  const s = new AvatarSession({
    baseUrl: BASE,
    credential: 'mp_x',
    logLevel: 'error',
    render: render as 'client',
  });
  const events: string[] = [];
  s.on('renderFallback', (e) => events.push(`fallback:${e.reason}`));
  s.on('videoReady', (e) => events.push(`videoReady:${e.width}x${e.height}`));
  s.on('reconnecting', (e) => events.push(`reconnecting:${e.attempt}`));
  await s.createSession({ avatarId: 'amara' });
  FakePeer.last!.set('connected');
  return { s, events };
}

describe("render: 'client'", () => {
  it('any other render than video or client is INVALID_CONFIGURATION', () => {
    expect(() => new AvatarSession({ baseUrl: BASE, render: 'canvas' as 'client' })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
    );
  });

  it('loads the pack before the offer, offers no video, and sends ready on the first drawn frame', async () => {
    const { events } = await started('client');
    const paths = calls.map((c) => `${c.method} ${c.url.replace(BASE, '').replace(SID, 'ID')}`);
    expect(paths.indexOf('GET /v1/avatar-session/ID/avatar')).toBeLessThan(
      paths.findIndex((p) => p.startsWith('POST /v1/avatar-session/ID/whep')),
    );
    const peer = FakePeer.last!;
    expect(peer.transceivers).toEqual(['audio']);
    expect(peer.channel.binaryType).toBe('arraybuffer');
    await vi.advanceTimersByTimeAsync(500);
    expect(readies(peer)).toBe(0); // nothing drawn yet: speech waits

    const before = drawn();
    send(peer, frame(0));
    await vi.advanceTimersByTimeAsync(300);
    expect(drawn()).toBeGreaterThan(before); // drawn on the canvas
    expect(readies(peer)).toBe(1);
    expect(events).toEqual(['videoReady:512x512']); // detached: the canvas's own size
    send(peer, frame(1920, 0.8));
    await vi.advanceTimersByTimeAsync(300);
    expect(readies(peer)).toBe(1); // once per connection
  });

  it("places frames by the timing the connection's hello announces, not by constants of its own", async () => {
    await started('client');
    const peer = FakePeer.last!;
    // an engine at 5 fps sending 200 ms Opus packets: frames lead their audio by far more than at 25 fps
    const hello = { type: 'hello', sessionId: SID, protocol: 1, stampRateHz: 48_000, frameMs: 200 };
    peer.channel.receive(JSON.stringify({ ...hello, audioPacketMs: 200 }));
    send(peer, frame(0));
    await vi.advanceTimersByTimeAsync(150); // the protocol's default timing would have drawn it by now
    expect(readies(peer)).toBe(0);
    await vi.advanceTimersByTimeAsync(150); // due 200 ms + the audio delay and output after arrival
    expect(readies(peer)).toBe(1);
  });

  it('an animation frame of another version is ignored: nothing is drawn, ready waits', async () => {
    await started('client');
    const peer = FakePeer.last!;
    const bytes = encodeAnimationFrame(frame(0)).slice();
    bytes[0] = 2;
    const before = drawn();
    peer.channel.receive(bytes.buffer);
    await vi.advanceTimersByTimeAsync(300);
    expect(drawn()).toBe(before);
    expect(readies(peer)).toBe(0);
  });

  it('a kind this SDK does not draw runs as video, with renderFallback unsupported-kind', async () => {
    pack = listing('hologram', { id: 'x', render: 'hologram' }); // a newer server's kind
    const { events } = await started('client');
    expect(events).toEqual(['fallback:unsupported-kind']);
    expect(FakePeer.last!.transceivers).toEqual(['video', 'audio']);
  });

  it('a pack that does not load runs as video, with renderFallback pack-failed', async () => {
    pack = { status: 500, body: { success: false, error: 'no', code: 'INTERNAL' } };
    const { events } = await started('client');
    expect(events).toEqual(['fallback:pack-failed']);
    expect(FakePeer.last!.transceivers).toEqual(['video', 'audio']);
  });

  it('a kind the operator does not let browsers draw runs as video, with renderFallback server', async () => {
    pack = { status: 403, body: { success: false, error: 'no', code: 'CLIENT_RENDER_DISABLED' } };
    const { events } = await started('client');
    expect(events).toEqual(['fallback:server']);
    expect(FakePeer.last!.transceivers).toEqual(['video', 'audio']);
  });

  it("the server's notice: renderFallback server, and one reconnect that asks for video", async () => {
    const { events } = await started('client');
    const first = FakePeer.last!;
    first.channel.receive(
      JSON.stringify({ type: 'notice', code: 'client_render_unavailable', message: 'not for photo' }),
    );
    // the reconnect's offer is answered at once here; its ICE connects well inside the attempt's
    // wait for it (connectWaitMs: 2 s at least), as it would on a working network
    await vi.advanceTimersByTimeAsync(1000);
    expect(events).toContain('fallback:server');
    expect(first.closed).toBe(true);
    expect(FakePeer.all.length).toBe(2);
    expect(FakePeer.last!.transceivers).toEqual(['video', 'audio']);
    FakePeer.last!.set('connected');
    await vi.advanceTimersByTimeAsync(5000);
    expect(FakePeer.all.length).toBe(2); // once
    // another notice code changes nothing
    FakePeer.last!.channel.receive(JSON.stringify({ type: 'notice', code: 'other', message: 'x' }));
    expect(events.filter((e) => e.startsWith('fallback'))).toEqual(['fallback:server']);
  });

  it('video mode never reads the pack and offers video', async () => {
    const { events } = await started();
    expect(calls.some((c) => c.url.endsWith('/avatar'))).toBe(false);
    expect(FakePeer.last!.transceivers).toEqual(['video', 'audio']);
    expect(events).toEqual([]);
  });

  it('animation frames that stop arriving reconnect, still without video, keeping the renderer', async () => {
    const { events } = await started('client');
    const packLoads = calls.filter((c) => c.url.endsWith('/avatar')).length;
    const first = FakePeer.last!;
    for (let i = 0; i < 20; i++) {
      send(first, frame(i * 1920));
      await vi.advanceTimersByTimeAsync(40);
    }
    expect(FakePeer.all.length).toBe(1);
    await vi.advanceTimersByTimeAsync(STALL_MS + 1000);
    expect(first.closed).toBe(true);
    expect(events).toContain('reconnecting:1');
    await vi.advanceTimersByTimeAsync(3000);
    const second = FakePeer.last!;
    expect(second).not.toBe(first);
    expect(second.transceivers).toEqual(['audio']);
    expect(calls.filter((c) => c.url.endsWith('/avatar')).length).toBe(packLoads); // the pack is kept
    second.set('connected');
    send(second, frame(40 * 1920));
    await vi.advanceTimersByTimeAsync(300);
    expect(readies(second)).toBe(1); // the new viewer's ready, on its first drawn frame
  });

  it('a lost context: frames meanwhile draw nothing; restored, the current frame is drawn at once', async () => {
    const { events } = await started('client');
    const peer = FakePeer.last!;
    send(peer, frame(0));
    await vi.advanceTimersByTimeAsync(300);
    const canvas = FakeCanvas.elements.at(-1)!;
    canvas.dispatchEvent(new Event('contextlost', { cancelable: true }));
    const before = drawn();
    for (let i = 1; i <= 10; i++) {
      send(peer, frame(i * 1920, 0.8));
      await vi.advanceTimersByTimeAsync(40);
    }
    await vi.advanceTimersByTimeAsync(300);
    expect(drawn()).toBe(before); // nothing drawn on a lost context
    canvas.dispatchEvent(new Event('contextrestored'));
    expect(drawn()).toBeGreaterThan(before); // the last frame due, drawn whole without waiting for another
    await feed(peer, 11, 2 * CONTEXT_RESTORE_MS);
    expect(events.filter((e) => e.startsWith('fallback'))).toEqual([]);
    expect(FakePeer.all.length).toBe(1);
  });

  it('a context not restored in time: renderFallback context-lost, and one reconnect that asks for video', async () => {
    const { events } = await started('client');
    const first = FakePeer.last!;
    send(first, frame(0));
    await vi.advanceTimersByTimeAsync(300);
    FakeCanvas.elements.at(-1)!.dispatchEvent(new Event('webglcontextlost', { cancelable: true }));
    await feed(first, 1, CONTEXT_RESTORE_MS - 100); // (frames keep coming: the connection is fine)
    expect(events.filter((e) => e.startsWith('fallback'))).toEqual([]);
    expect(FakePeer.all.length).toBe(1);
    await feed(first, 100, 200);
    expect(events.filter((e) => e.startsWith('fallback'))).toEqual(['fallback:context-lost']);
    expect(first.closed).toBe(true);
    expect(FakePeer.all.length).toBe(2);
    expect(FakePeer.last!.transceivers).toEqual(['video', 'audio']);
  });
});
