import { describe, expect, it } from 'vitest';
import { FakeEngineHost } from './fake-engine-host.js';
import { ManualClock } from './manual-clock.js';
import type { EngineEvent } from '../contract/types.js';

const OFFER =
  'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96 VP8/90000\r\n';

async function setup() {
  const clock = new ManualClock();
  const engine = new FakeEngineHost({ clock, msPerCharacter: 10 });
  const events: EngineEvent[] = [];
  engine.onEvent((e) => events.push(e));
  await engine.createSession({ sessionId: 's1', avatarId: 'amara', voiceId: 'en-us-female', voiceSpeed: 1 });
  return { clock, engine, events };
}

describe('FakeEngineHost', () => {
  it('speaks turns in order with timing from text length and speed', async () => {
    const { clock, engine, events } = await setup();
    await engine.sayText('s1', { turnId: 'a', text: '0123456789', isFinal: true }); // 100 ms
    await engine.sayText('s1', { turnId: 'b', text: '01234', isFinal: true }); // 50 ms
    expect(engine.playingTurn('s1')).toBe('a');
    expect(events).toEqual([]); // it sounds from the next 10 ms tick
    clock.advance(10);
    expect(events.map((e) => e.type)).toEqual(['speakingStart', 'word']);
    clock.advance(89);
    expect(engine.playingTurn('s1')).toBe('a');
    clock.advance(1); // a's last sample: b is next
    expect(engine.playingTurn('s1')).toBe('b');
    clock.advance(50);
    expect(events).toEqual([
      { type: 'speakingStart', sessionId: 's1', turnId: 'a' },
      { type: 'word', sessionId: 's1', turnId: 'a', text: '0123456789', offsetMs: 0 },
      { type: 'speakingEnd', sessionId: 's1', turnId: 'a', interrupted: false },
      { type: 'speakingStart', sessionId: 's1', turnId: 'b' },
      { type: 'word', sessionId: 's1', turnId: 'b', text: '01234', offsetMs: 0 },
      { type: 'speakingEnd', sessionId: 's1', turnId: 'b', interrupted: false },
    ]);
  });

  it('interrupt ends the playing turn as interrupted and clears the queue', async () => {
    const { clock, engine, events } = await setup();
    await engine.sayText('s1', { turnId: 'a', text: 'long text here', isFinal: true });
    await engine.sayText('s1', { turnId: 'b', text: 'next', isFinal: true });
    clock.advance(20);
    await engine.interrupt('s1');
    clock.advance(10_000);
    expect(events.at(-1)).toEqual({ type: 'speakingEnd', sessionId: 's1', turnId: 'a', interrupted: true });
    expect(events.filter((e) => e.type === 'speakingStart')).toHaveLength(1);
    expect(await engine.sayText('s1', { turnId: 'b', text: 'more', isFinal: true })).toBe('discarded');
  });

  it('validates uploads and plays them for their duration', async () => {
    const { engine } = await setup();
    expect(
      await engine.sayAudio('s1', { turnId: 'x', audio: new Uint8Array(), declaredDurationSec: 1 }),
    ).toEqual({
      kind: 'invalid_audio',
      reason: 'the file is empty',
    });
    const junk = new TextEncoder().encode('not audio at all');
    expect((await engine.sayAudio('s1', { turnId: 'x', audio: junk, declaredDurationSec: 1 })).kind).toBe(
      'invalid_audio',
    );
    const mp3 = new Uint8Array([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0]);
    expect(await engine.sayAudio('s1', { turnId: 'x', audio: mp3, declaredDurationSec: 2 })).toEqual({
      kind: 'queued',
      decodedDurationSec: 2,
    });
  });

  it('rejects unknown sessions and viewers, and H.264-only offers', async () => {
    const { engine } = await setup();
    await expect(engine.sayText('nope', { turnId: 'a', text: 'x', isFinal: true })).rejects.toMatchObject({
      code: 'unknown_session',
    });
    await expect(engine.addIceCandidates('s1', 'v', 'a=candidate:1')).rejects.toMatchObject({
      code: 'unknown_viewer',
    });
    await expect(
      engine.connectViewer('s1', { viewerId: 'v', offerSdp: OFFER.replace('VP8', 'H264'), iceServers: [] }),
    ).rejects.toMatchObject({ code: 'unsupported_offer' });
  });

  it('a new viewer replaces the previous one', async () => {
    const { engine, events } = await setup();
    const a = await engine.connectViewer('s1', { viewerId: 'v1', offerSdp: OFFER, iceServers: [] });
    expect(a.answerSdp).toContain('VP8');
    await engine.connectViewer('s1', { viewerId: 'v2', offerSdp: OFFER, iceServers: [] });
    expect(events).toContainEqual({ type: 'viewerDisconnected', sessionId: 's1', viewerId: 'v1' });
    await expect(engine.disconnectViewer('s1', 'v1')).rejects.toMatchObject({ code: 'unknown_viewer' });
    await engine.disconnectViewer('s1', 'v2');
  });

  it('close and failSession release the session; close is idempotent', async () => {
    const { engine, events, clock } = await setup();
    await engine.sayText('s1', { turnId: 'a', text: 'x', isFinal: true });
    await engine.closeSession('s1', 'ended_by_client');
    await engine.closeSession('s1', 'ended_by_client');
    expect(engine.sessionIds()).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
    await engine.createSession({
      sessionId: 's2',
      avatarId: 'amara',
      voiceId: 'en-us-female',
      voiceSpeed: 1,
    });
    engine.failSession('s2');
    expect(events.at(-1)).toEqual({
      type: 'sessionFailed',
      sessionId: 's2',
      message: 'engine process exited',
    });
  });
});
