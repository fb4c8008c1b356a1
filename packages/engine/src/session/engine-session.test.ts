/**
 * The real engine session with injected media: null sinks and peers (testing/null-media.ts), speech
 * whose length follows the text (testing/timed-speech.ts), and a renderer that records what it was
 * asked. No libwebrtc, no Skia: the session's wiring is what is tested.
 */
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../contract/types.js';
import { REST_MOUTH, Viseme, type FaceState } from '../face-state.js';
import type { Renderer } from '../render/renderer.js';
import { browserOffer } from '../testing/offers.js';
import { nullMedia } from '../testing/null-media.js';
import { timedSpeech } from '../testing/timed-speech.js';
import { EngineSession, type EngineSessionConfig } from './engine-session.js';
import type { VideoSink } from '../contract/media.js';
import { TurnAudio } from './turn-audio.js';

const OFFER = browserOffer([[96, 'VP8']]);
const settle = () => new Promise((r) => setImmediate(r));

function build(video?: { sink: VideoSink; renderer: Renderer }) {
  const media = nullMedia();
  const events: EngineEvent[] = [];
  const base = {
    sessionId: 's1',
    fps: 25,
    readyTimeoutMs: 5000,
    noChannelStartMs: 500,
    emit: (e: EngineEvent) => events.push(e),
    speech: timedSpeech({ msPerCharacter: 10, speed: 1 }),
    audioSink: media.audioSink,
    peerFactory: media.peerFactory,
  };
  const config: EngineSessionConfig = video
    ? { ...base, videoSink: video.sink, renderer: video.renderer }
    : base;
  const session = new EngineSession(config);
  let tick = 0;
  const run = (ticks: number) => {
    for (let i = 0; i < ticks; i++) session.tick(tick++);
  };
  return { session, media, events, run };
}

/**
 * A renderer of 8×8 that records each state; I420 when `i420`, else RGBA; with `regions`, it says
 * what changed (renderRegion): a 2×2 region on every other frame, nothing on the others.
 */
function recordingVideo(i420: boolean, regions = false) {
  const states: FaceState[] = [];
  const written: string[] = [];
  const renderer: Renderer = {
    width: 8,
    height: 8,
    render: (state) => {
      states.push(state);
      return new Uint8ClampedArray(8 * 8 * 4);
    },
    ...(i420 ? { renderI420: (state: FaceState) => void states.push(state) } : {}),
    ...(regions
      ? {
          renderRegion: (state: FaceState) => {
            states.push(state);
            if (states.length % 2 === 0) return null;
            return { region: { x: 2, y: 2, width: 2, height: 2 }, rgba: new Uint8ClampedArray(16) };
          },
        }
      : {}),
    close: () => undefined,
  };
  const sink: VideoSink = {
    width: 8,
    height: 8,
    writeI420: (frame) => void written.push(`i420:${frame.length}`),
    writeRgba: (frame) => void written.push(`rgba:${frame.length}`),
    writeRgbaRegion: (region, rgba) =>
      void written.push(`region:${region.width}x${region.height}:${rgba.length}`),
    repeat: () => void written.push('repeat'),
  };
  return { renderer, sink, states, written };
}

describe('EngineSession with injected media', () => {
  it('waits for its viewer: nothing plays until the viewer is ready, then audio goes to the sink', async () => {
    const { session, media, events, run } = build();
    expect(session.sayText({ turnId: 't1', text: 'Hello there.', isFinal: true })).toBe('queued');
    run(5);
    expect(events).toEqual([]);
    expect(session.playingTurn).toBeUndefined();
    await session.connectViewer('v1', OFFER, []);
    await settle(); // the null peer connects and says ready
    expect(events[0]).toEqual({ type: 'viewerConnected', sessionId: 's1', viewerId: 'v1' });
    expect(session.playingTurn).toBe('t1');
    run(20); // 'Hello there.' is 120 ms
    // the words go to the host too, in the order played (speakingStart, words, speakingEnd)
    expect(events.slice(1)).toEqual([
      { type: 'speakingStart', sessionId: 's1', turnId: 't1' },
      { type: 'word', sessionId: 's1', turnId: 't1', text: 'Hello there.', offsetMs: 0 },
      { type: 'speakingEnd', sessionId: 's1', turnId: 't1', interrupted: false },
    ]);
    expect(media.audioSink.chunks).toBe(20);
    expect(session.framesSent).toBe(0); // no video sink: no frames
    session.close('ended_by_client');
  });

  it('with a video sink, every frame is rendered into it (I420 or RGBA)', async () => {
    for (const i420 of [true, false]) {
      const video = recordingVideo(i420);
      const { session, run } = build(video);
      await session.connectViewer('v1', OFFER, []);
      run(40); // 400 ms at 25 fps: 10 frames (11 when the session's phase splits the first)
      expect(session.framesSent).toBeGreaterThanOrEqual(10);
      expect(session.framesSent).toBeLessThanOrEqual(11);
      expect(video.states).toHaveLength(session.framesSent);
      expect(video.written).toHaveLength(session.framesSent);
      expect(new Set(video.written)).toEqual(new Set([i420 ? 'i420:96' : 'rgba:256']));
      session.close('ended_by_client');
    }
  });

  it('a renderer that tells what changed: only that region is written, and an unchanged frame is sent again', async () => {
    const video = recordingVideo(false, true);
    const { session, run } = build(video);
    await session.connectViewer('v1', OFFER, []);
    run(40);
    expect(session.framesSent).toBeGreaterThanOrEqual(10);
    expect(video.written).toHaveLength(session.framesSent);
    expect(video.written.slice(0, 4)).toEqual(['region:2x2:16', 'repeat', 'region:2x2:16', 'repeat']);
    session.close('ended_by_client');
  });

  it('a viewer replaced by another is told so and closed; its messages stop', async () => {
    const { session, media, events } = build();
    await session.connectViewer('v1', OFFER, []);
    await settle();
    await session.connectViewer('v2', OFFER, []);
    const [first, second] = media.peers;
    expect(first?.sent.at(-1)).toEqual({ type: 'replaced' });
    expect(first?.closed).toBe(true);
    expect(second?.closed).toBe(false);
    expect(events).toContainEqual({ type: 'viewerDisconnected', sessionId: 's1', viewerId: 'v1' });
    session.close('ended_by_client');
    expect(second?.sent.at(-1)).toEqual({ type: 'sessionEnded', reason: 'ended_by_client' });
  });

  it('interrupt mid-turn: speakingEnd interrupted at once, the queue is cleared, later chunks are discarded', async () => {
    const { session, events, run } = build();
    await session.connectViewer('v1', OFFER, []);
    await settle();
    session.sayText({ turnId: 'a', text: 'A long turn that goes on and on.', isFinal: true });
    session.sayText({ turnId: 'b', text: 'Next.', isFinal: true });
    run(5);
    expect(session.interrupt()).toEqual(['a', 'b']);
    run(100);
    expect(events.filter((e) => e.type.startsWith('speaking'))).toEqual([
      { type: 'speakingStart', sessionId: 's1', turnId: 'a' },
      { type: 'speakingEnd', sessionId: 's1', turnId: 'a', interrupted: true },
    ]);
    expect(session.sayText({ turnId: 'a', text: 'more', isFinal: true })).toBe('discarded');
    session.close('ended_by_client');
  });

  it('hands the renderer the sound of a mouth made from audio alone (what a video avatar matches)', async () => {
    const video = recordingVideo(true);
    const marker = Float32Array.of(0.25, 0.5);
    const speech = timedSpeech({ msPerCharacter: 10, speed: 1 });
    const sounding: typeof speech = {
      ...speech,
      textTurn(turnId) {
        const audio = new TurnAudio(turnId);
        return {
          audio,
          addText(text) {
            const pcm = new Int16Array(text.length * 480);
            audio.append(pcm, {
              durationSamples: pcm.length,
              at: () => ({ ...REST_MOUTH, open: 0.5 }),
              visemeAt: () => Viseme.C,
              emphasisAt: () => 0,
              soundAt: () => marker,
            });
          },
          finish: () => audio.end(),
          cancel: () => audio.close(),
        };
      },
    };
    const media = nullMedia();
    const session = new EngineSession({
      sessionId: 's1',
      fps: 25,
      readyTimeoutMs: 5000,
      noChannelStartMs: 500,
      emit: () => undefined,
      speech: sounding,
      audioSink: media.audioSink,
      peerFactory: media.peerFactory,
      videoSink: video.sink,
      renderer: video.renderer,
    });
    await session.connectViewer('v1', OFFER, []);
    await settle();
    session.sayText({ turnId: 't1', text: 'A long enough sentence to render frames.', isFinal: true });
    for (let t = 0; t < 30; t++) session.tick(t);
    const speaking = video.states.filter((s) => s.speaking);
    expect(speaking.length).toBeGreaterThan(3);
    expect(speaking.every((s) => s.sound === marker)).toBe(true);
    expect(video.states.filter((s) => !s.speaking).every((s) => s.sound === undefined)).toBe(true);
    session.close('ended_by_client');
  });

  it('draws a turn’s first mouth on the tick its speech starts, not at the next frame of the cadence', async () => {
    const video = recordingVideo(true);
    const { session, events, run } = build(video);
    await session.connectViewer('v1', OFFER, []);
    await settle();
    const drawn = video.states.length;
    for (let i = 0; i < 4 && video.states.length === drawn; i++) run(1); // a frame of the cadence begins
    session.sayText({ turnId: 't1', text: 'Hello there.', isFinal: true });
    run(1); // the next tick (not a frame of the cadence at 25 fps) starts the speech
    expect(events).toContainEqual({ type: 'speakingStart', sessionId: 's1', turnId: 't1' });
    expect(video.states).toHaveLength(drawn + 2);
    expect(video.states.at(-1)!.speaking).toBe(true);
    run(3); // the cadence goes on: its next frame, three ticks on
    expect(video.states).toHaveLength(drawn + 3);
    session.close('ended_by_client');
  });

  it('issue 21: a lost viewer invents no interrupt; speech queued meanwhile waits for the next viewer; hello names the turn playing', async () => {
    const { session, media, events, run } = build();
    await session.connectViewer('v1', OFFER, []);
    await settle();
    session.sayText({ turnId: 't1', text: 'x'.repeat(50), isFinal: true }); // 500 ms
    run(10);
    expect(session.playingTurn).toBe('t1');
    media.peers[0]!.lose();
    session.sayText({ turnId: 't2', text: 'y'.repeat(100), isFinal: true }); // 1 s
    run(100); // t1 plays to its end (unheard); t2 waits for a viewer
    const speaking = () => events.filter((e) => e.type === 'speakingStart' || e.type === 'speakingEnd');
    expect(speaking()).toEqual([
      { type: 'speakingStart', sessionId: 's1', turnId: 't1' },
      { type: 'speakingEnd', sessionId: 's1', turnId: 't1', interrupted: false },
    ]);
    expect(session.playingTurn).toBeUndefined();
    await session.connectViewer('v2', OFFER, []);
    await settle(); // the new viewer connects and is ready: t2 starts
    // (and how this viewer's stream is timed: 25 fps, libwebrtc's 20 ms Opus packets to a viewer with video)
    const timing = { stampRateHz: 48_000, frameMs: 40, audioPacketMs: 20 };
    expect(media.peers[1]!.sent[0]).toEqual({ type: 'hello', sessionId: 's1', protocol: 1, ...timing });
    run(1);
    expect(session.playingTurn).toBe('t2');
    await session.connectViewer('v3', OFFER, []); // a page reconnecting mid-turn
    await settle();
    expect(media.peers[2]!.sent[0]).toEqual({
      type: 'hello',
      sessionId: 's1',
      protocol: 1,
      speaking: 't2',
      ...timing,
    });
  });
});
