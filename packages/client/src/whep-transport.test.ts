import { encodeAnimationFrame } from '@mouthpiece/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from './logger.js';
import { FakeMediaStream, FakePeer, fakeFetch, type Answer, type Call } from './testing/fake-browser.js';
import type { WhepIo } from './whep-client.js';
import { WhepTransport, answersOnlyLoopback, type WhepTransportEvents } from './whep-transport.js';

const WHEP = 'http://mp.test/v1/avatar-session/S/whep?vt=v';
const RESOURCE = 'http://mp.test/v1/avatar-session/S/whep/viewer1';
let calls: Call[];
let offerAnswer: () => Answer | Promise<Answer>;

/** The transport's I/O, injected: fake peers and a fetch that records (no global fetch or peer). */
function io(): WhepIo {
  return {
    peer: (config) => new FakePeer(config) as unknown as RTCPeerConnection,
    fetch: fakeFetch(
      (call) =>
        call.method === 'POST'
          ? offerAnswer()
          : { status: call.method === 'PATCH' ? 204 : 200, body: { success: true } },
      calls,
    ),
  };
}

const open = (render: 'video' | 'client' = 'video', more: { trickle?: boolean; signal?: AbortSignal } = {}) =>
  WhepTransport.open(
    {
      whepUrl: WHEP,
      iceServers: [],
      iceTransportPolicy: 'all',
      speakingDetection: 'auto',
      render,
      video: () => undefined,
      log: createLogger('error'),
      ...more,
    },
    io(),
  );

/** The next peer made gathers until the test says `gathered()`. */
function gatheringPeer(): { gathered: () => void } {
  const made = FakePeer.all.length;
  const peer = (): FakePeer => FakePeer.all[made]!;
  queueMicrotask(() => (peer().iceGatheringState = 'gathering'));
  return {
    gathered: () => {
      peer().iceGatheringState = 'complete';
      peer().dispatchEvent(new Event('icegatheringstatechange'));
    },
  };
}

/** Everything a transport reports, as `name:payload` lines. */
function record(t: WhepTransport): string[] {
  const seen: string[] = [];
  const names: Array<keyof WhepTransportEvents> = [
    'message',
    'peerState',
    'firstFrame',
    'stall',
    'audioSpeaking',
  ];
  for (const name of names) t.on(name, (p: unknown) => seen.push(`${name}:${JSON.stringify(p)}`));
  return seen;
}

const animationFrame = (sampleIndex: number): Uint8Array<ArrayBuffer> =>
  encodeAnimationFrame({
    sampleIndex,
    speaking: false,
    mouth: { open: 0, width: 0, round: 0, teeth: 0, lipBite: 0, tongue: 0 },
    motion: { blink: 0, headX: 0, headY: 0, tilt: 0, breath: 0, brow: 0, gazeX: 0, gazeY: 0 },
  }).slice();

const sent = () => calls.map((c) => `${c.method} ${c.url}`);
const candidate = (n: number) => ({
  candidate: `candidate:${n} 1 udp 1 127.0.0.2 500${n} typ host`,
  sdpMid: '0',
});

beforeEach(() => {
  vi.useFakeTimers();
  vi.stubGlobal('MediaStream', FakeMediaStream);
  calls = [];
  FakePeer.all = [];
  offerAnswer = () => ({
    status: 201,
    body: 'v=0\r\n',
    headers: {
      Location: '/v1/avatar-session/S/whep/viewer1',
      'Accept-Patch': 'application/trickle-ice-sdpfrag',
    },
  });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('WhepTransport', () => {
  it('an answer naming only loopback addresses fails its connection at once, not after the ICE wait', async () => {
    const answerWith = (addresses: string[]) =>
      'v=0\r\n' + addresses.map((a, i) => `a=candidate:${i} 1 udp 1 ${a} 5000 typ host\r\n`).join('');
    expect(answersOnlyLoopback(answerWith(['::1', '127.0.0.1']))).toBe(true);
    expect(answersOnlyLoopback(answerWith(['10.97.0.2', '::1', '127.0.0.1']))).toBe(false);
    expect(answersOnlyLoopback(answerWith([]))).toBe(false); // no candidates: peer-reflexive may still work
    offerAnswer = () => ({
      status: 201,
      body: answerWith(['::1', '127.0.0.1']),
      headers: { Location: '/v1/avatar-session/S/whep/viewer1' },
    });
    const t = await open();
    await expect(t.whenConnected(60_000)).rejects.toThrow(/only loopback addresses/);
    offerAnswer = () => ({
      status: 201,
      body: answerWith(['10.97.0.2', '127.0.0.1']),
      headers: { Location: '/v1/avatar-session/S/whep/viewer1' },
    });
    const u = await open();
    const connected = u.whenConnected(60_000);
    FakePeer.last!.set('connected');
    await expect(connected).resolves.toBeUndefined();
  });

  it('POSTs the offer, then reports its connection: peer states and server messages (unknown ones dropped)', async () => {
    const t = await open();
    const seen = record(t);
    const peer = FakePeer.last!;
    expect(sent()).toEqual([`POST ${WHEP}`]);
    expect(calls[0]!.body).toContain('m=video');
    peer.set('connected');
    peer.channel.receive('{"type":"speakingStart","turnId":"t1"}');
    peer.channel.receive('{"type":"noSuchThing"}');
    peer.channel.receive('not json');
    expect(seen).toEqual([
      'peerState:{"state":"connected"}',
      'message:{"type":"speakingStart","turnId":"t1"}',
    ]);
  });

  it('client rendering opens the frames channel (unordered, no retransmits); frames on it, or on events from an older server, are animation', async () => {
    expect((await open('video'), FakePeer.last!.frames)).toBeUndefined(); // video: events alone
    const t = await open('client');
    const peer = FakePeer.last!;
    expect(peer.channel.init).toEqual({ ordered: true });
    expect(peer.frames?.init).toEqual({ ordered: false, maxRetransmits: 0 });
    expect(peer.frames?.binaryType).toBe('arraybuffer');
    const stamps: number[] = [];
    t.on('animation', ({ frame }) => stamps.push(frame.sampleIndex));
    peer.frames!.receive(animationFrame(1920).buffer);
    peer.channel.receive(animationFrame(3840).buffer); // an engine that knows no frames channel
    peer.frames!.receive('{"type":"speakingStart","turnId":"t1"}'); // text on frames: not a frame
    expect(stamps).toEqual([1920, 3840]);
    await t.close();
    expect(peer.frames!.readyState).toBe('closed');
  });

  it('trickles candidates found after the offer by PATCH to the resource, none when the server takes no PATCH', async () => {
    const t = await open();
    FakePeer.last!.candidate(candidate(1));
    expect(sent()).toEqual([`POST ${WHEP}`, `PATCH ${RESOURCE}`]);
    expect(calls[1]!.body).toBe(`a=mid:0\r\na=${candidate(1).candidate}\r\n`);
    await t.close();
    offerAnswer = () => ({
      status: 201,
      body: 'v=0\r\n',
      headers: { Location: '/v1/avatar-session/S/whep/viewer2' },
    });
    calls.length = 0;
    await open();
    FakePeer.last!.candidate(candidate(2));
    expect(sent()).toEqual([`POST ${WHEP}`]);
  });

  it('a server that takes PATCH (trickle): the offer goes before gathering ends; candidates found meanwhile go in one PATCH once answered', async () => {
    const gathering = gatheringPeer();
    let answer!: (a: Answer) => void;
    offerAnswer = () => new Promise<Answer>((r) => (answer = r));
    const opening = open('video', { trickle: true });
    await vi.advanceTimersByTimeAsync(0);
    expect(sent()).toEqual([`POST ${WHEP}`]); // not waiting for gathering
    FakePeer.last!.candidate(candidate(1));
    FakePeer.last!.candidate(candidate(2));
    expect(sent()).toEqual([`POST ${WHEP}`]); // held: no resource yet
    answer({
      status: 201,
      body: 'v=0\r\n',
      headers: {
        Location: '/v1/avatar-session/S/whep/viewer1',
        'Accept-Patch': 'application/trickle-ice-sdpfrag',
      },
    });
    const t = await opening;
    expect(t.trickle).toBe(true);
    expect(sent()).toEqual([`POST ${WHEP}`, `PATCH ${RESOURCE}`]);
    expect(calls[1]!.body).toBe(
      `a=mid:0\r\na=${candidate(1).candidate}\r\na=mid:0\r\na=${candidate(2).candidate}\r\n`,
    );
    FakePeer.last!.candidate(candidate(3));
    expect(sent()).toEqual([`POST ${WHEP}`, `PATCH ${RESOURCE}`, `PATCH ${RESOURCE}`]);
    gathering.gathered();
  });

  it('a server not known to take PATCH: the offer waits for gathering (up to 1.5 s), carrying the candidates', async () => {
    const gathering = gatheringPeer();
    const opening = open('video');
    await vi.advanceTimersByTimeAsync(1000);
    expect(sent()).toEqual([]);
    gathering.gathered();
    const t = await opening;
    expect(sent()).toEqual([`POST ${WHEP}`]);
    expect(t.trickle).toBe(true); // this answer says it does: the link offers early next time
    gatheringPeer();
    const slow = open('video');
    await vi.advanceTimersByTimeAsync(1500);
    await slow;
    expect(sent()).toEqual([`POST ${WHEP}`, `POST ${WHEP}`]); // gathering never ended: sent at its bound
  });

  it('an offer whose signal aborts before its answer is abandoned (RTC_CONNECTION_FAILED, ABORTED), its request and peer closed', async () => {
    offerAnswer = () => new Promise<Answer>(() => undefined);
    const abort = new AbortController();
    const opening = open('video', { trickle: true, signal: abort.signal });
    await vi.advanceTimersByTimeAsync(100);
    abort.abort();
    await expect(opening).rejects.toMatchObject({
      code: 'RTC_CONNECTION_FAILED',
      details: { code: 'ABORTED' },
    });
    expect(FakePeer.last!.closed).toBe(true);
    await expect(open('video', { signal: abort.signal })).rejects.toMatchObject({
      details: { code: 'ABORTED' },
    });
  });

  it("a closed transport is silent: its connection's late events reach no listener and send nothing", async () => {
    const t = await open();
    const seen = record(t);
    const peer = FakePeer.last!;
    peer.stats.set('v', { type: 'inbound-rtp', kind: 'video', packetsReceived: 10, framesDecoded: 0 });
    await vi.advanceTimersByTimeAsync(600); // the watchdog has seen video flow
    const closing = t.close();
    expect(t.closed).toBe(true);
    expect(peer.closed).toBe(true);
    expect(peer.channel.readyState).toBe('closed');
    peer.set('failed');
    peer.channel.receive('{"type":"sessionEnded","reason":"ended_by_admin"}');
    peer.candidate(candidate(3));
    peer.stats.set('v', { type: 'inbound-rtp', kind: 'video', packetsReceived: 10, framesDecoded: 5 });
    await vi.advanceTimersByTimeAsync(10_000); // no first frame, no stall, no speech fallback
    t.send({ type: 'ready' });
    await closing;
    expect(seen).toEqual([]);
    expect(sent()).toEqual([`POST ${WHEP}`, `DELETE ${RESOURCE}`]);
    expect(peer.channel.sent).toEqual([]);
  });

  it('close is idempotent: one DELETE, the same promise; a session known gone sends none', async () => {
    const t = await open();
    const first = t.close({ keepalive: true });
    expect(t.close()).toBe(first);
    await first;
    expect(sent().filter((c) => c.startsWith('DELETE'))).toEqual([`DELETE ${RESOURCE}`]);
    const gone = await open();
    await gone.close({ sessionGone: true });
    expect(sent().filter((c) => c.startsWith('DELETE'))).toHaveLength(1);
  });

  it('at the first decoded frame: tells the server `ready` (once its channel opens) and reports the size once', async () => {
    const t = await open();
    const seen = record(t);
    const peer = FakePeer.last!;
    peer.channel.readyState = 'connecting';
    peer.stats.set('v', {
      type: 'inbound-rtp',
      kind: 'video',
      packetsReceived: 3,
      framesDecoded: 1,
      frameWidth: 640,
      frameHeight: 480,
    });
    await vi.advanceTimersByTimeAsync(200);
    expect(seen).toEqual(['firstFrame:{"width":640,"height":480}']);
    expect(peer.channel.sent).toEqual([]);
    peer.channel.readyState = 'open';
    peer.channel.dispatchEvent(new Event('open'));
    expect(peer.channel.sent).toEqual(['{"type":"ready"}']);
    await vi.advanceTimersByTimeAsync(200);
    expect(seen).toHaveLength(1);
  });

  it('an offer answered 404 or 410 rejects with SESSION_NOT_FOUND, another with RTC_CONNECTION_FAILED; the peer is closed', async () => {
    for (const [status, code] of [
      [404, 'SESSION_NOT_FOUND'],
      [410, 'SESSION_NOT_FOUND'],
      [503, 'RTC_CONNECTION_FAILED'],
    ] as const) {
      offerAnswer = () => ({ status, body: { success: false } });
      await expect(open()).rejects.toMatchObject({ code, details: { status } });
      expect(FakePeer.last!.closed).toBe(true);
    }
    expect(sent().filter((c) => !c.startsWith('POST'))).toEqual([]);
  });
});
