/**
 * A viewer that draws the avatar itself (its offer has no video m-line, render: 'client'): the real
 * session on null media renders nothing for it and sends each frame's state as a binary animation
 * frame on its data channel, stamped with the audio sample it belongs to.
 */
import { describe, expect, it } from 'vitest';
import { NOTICE_CODE, decodeAnimationFrame, type AnimationFrame, type VideoPick } from '@mouthpiece/protocol';
import { frameIntervalMs, msToSamples } from '../clock/media-clock.js';
import { REST_MOUTH, Viseme, type FaceState } from '../face-state.js';
import type { Renderer } from '../render/renderer.js';
import { browserOffer } from '../testing/offers.js';
import { nullMedia, type NullPeer } from '../testing/null-media.js';
import { timedSpeech } from '../testing/timed-speech.js';
import { EngineSession } from './engine-session.js';
import type { VideoSink } from '../contract/media.js';
import type { SpeechSource } from './speech-source.js';
import { TurnAudio } from './turn-audio.js';

const VIDEO_OFFER = browserOffer([[96, 'VP8']]);
const CLIENT_OFFER = browserOffer([]);
const settle = () => new Promise((r) => setImmediate(r));
const OPEN = 0.6;

/** Speech 10 ms per character whose mouth is open OPEN all the way. */
function openSpeech(): SpeechSource {
  const speech = timedSpeech({ msPerCharacter: 10, speed: 1 });
  return {
    ...speech,
    textTurn(turnId) {
      const audio = new TurnAudio(turnId);
      return {
        audio,
        addText(text) {
          const pcm = new Int16Array(text.length * 480);
          audio.append(pcm, {
            durationSamples: pcm.length,
            at: () => ({ ...REST_MOUTH, open: OPEN }),
            visemeAt: () => Viseme.D,
            emphasisAt: () => 0,
          });
        },
        finish: () => audio.end(),
        cancel: () => audio.close(),
      };
    },
  };
}

/** A renderer and sink that count their calls; `pick` when it stands for a video avatar. */
function countingVideo(pick?: VideoPick) {
  const calls = { render: 0, renderI420: 0, pick: 0, written: 0 };
  const renderer: Renderer = {
    width: 8,
    height: 8,
    render: () => (calls.render++, new Uint8ClampedArray(8 * 8 * 4)),
    renderI420: () => void calls.renderI420++,
    ...(pick ? { pick: (_: FaceState) => (calls.pick++, pick) } : {}),
    close: () => undefined,
  };
  const sink: VideoSink = {
    width: 8,
    height: 8,
    writeI420: () => void calls.written++,
    writeRgba: () => void calls.written++,
    writeRgbaRegion: () => void calls.written++,
    repeat: () => void calls.written++,
  };
  return { renderer, sink, calls };
}

function build(video = countingVideo(), allowed?: { clientRender: boolean; avatarKind: string }) {
  const media = nullMedia();
  const session = new EngineSession({
    sessionId: 's1',
    fps: 25,
    readyTimeoutMs: 5000,
    noChannelStartMs: 500,
    emit: () => undefined,
    speech: openSpeech(),
    audioSink: media.audioSink,
    peerFactory: media.peerFactory,
    videoSink: video.sink,
    renderer: video.renderer,
    ...allowed,
  });
  let tick = 0;
  const run = (ticks: number) => {
    for (let i = 0; i < ticks; i++) session.tick(tick++);
  };
  return { session, media, run, calls: video.calls };
}

const frames = (peer: NullPeer | undefined): AnimationFrame[] =>
  (peer?.binary ?? []).map((b) => decodeAnimationFrame(b)!);

describe('EngineSession for a viewer that draws the avatar itself', () => {
  it('renders nothing and sends an animation frame each video frame, stamped with rising samples', async () => {
    const { session, media, run, calls } = build();
    await session.connectViewer('v1', CLIENT_OFFER, []);
    await settle();
    run(100); // 1 s at 25 fps
    expect(calls).toEqual({ render: 0, renderI420: 0, pick: 0, written: 0 });
    expect(session.framesSent).toBe(0);
    const got = frames(media.peers[0]);
    expect(got.length).toBeGreaterThanOrEqual(25);
    expect(got.length).toBeLessThanOrEqual(26);
    expect(session.animationFramesSent).toBe(got.length);
    expect(media.peers[0]!.binary.every((b) => b.byteLength === 24)).toBe(true);
    // the first frame on the first tick: half a frame past its 10 ms chunk (the frame's centre),
    // then one frame's worth of audio apart (the first gap shorter: the session's phase)
    const step = msToSamples(frameIntervalMs(25));
    expect(got[0]!.sampleIndex).toBe(480 + step / 2);
    expect(got[1]!.sampleIndex - got[0]!.sampleIndex).toBeLessThanOrEqual(step);
    for (let i = 2; i < got.length; i++) expect(got[i]!.sampleIndex - got[i - 1]!.sampleIndex).toBe(step);
    expect(got.at(-1)!.sampleIndex).toBeLessThanOrEqual(media.audioSink.chunks * 480 + step / 2);
    session.close('ended_by_client');
  });

  it('in a late batch of ticks sends every frame (each goes with its own audio), where video skips', async () => {
    const { session, media, calls } = build();
    await session.connectViewer('v1', CLIENT_OFFER, []);
    await settle();
    // 1 s of ticks in late batches of 8 (80 ms each), as a starved engine runs them
    for (let t = 0; t < 100; t++) session.tick(t, 7 - (t % 8));
    const got = frames(media.peers[0]);
    expect(got.length).toBeGreaterThanOrEqual(25);
    expect(session.framesSkipped).toBe(0);
    const step = msToSamples(frameIntervalMs(25));
    for (let i = 2; i < got.length; i++) expect(got[i]!.sampleIndex - got[i - 1]!.sampleIndex).toBe(step);
    // the same batches skip video frames that a newer one of the batch supersedes
    await session.connectViewer('v2', VIDEO_OFFER, []);
    await settle();
    for (let t = 100; t < 200; t++) session.tick(t, 7 - (t % 8));
    expect(session.framesSkipped).toBeGreaterThan(0);
    expect(calls.renderI420 + session.framesSkipped).toBeGreaterThanOrEqual(25);
    session.close('ended_by_client');
  });

  it('opens the mouth while a turn speaks and rests it on the very next frame after an interrupt', async () => {
    const { session, media, run } = build();
    await session.connectViewer('v1', CLIENT_OFFER, []);
    await settle();
    session.sayText({
      turnId: 't1',
      text: 'A long enough sentence to keep on speaking for a while.',
      isFinal: true,
    });
    run(40);
    const speaking = frames(media.peers[0]);
    expect(speaking.slice(1).every((f) => f.speaking && Math.abs(f.mouth.open - OPEN) < 0.01)).toBe(true);
    session.interrupt();
    run(4); // the very next frame
    const after = frames(media.peers[0]).slice(speaking.length);
    expect(after).toHaveLength(1);
    expect(after[0]!.speaking).toBe(false);
    // at rest (within the wire's 1/255 quantisation), not closing over several frames
    for (const k of ['open', 'width', 'round', 'teeth', 'lipBite', 'tongue'] as const)
      expect(Math.abs(after[0]!.mouth[k] - REST_MOUTH[k])).toBeLessThanOrEqual(1 / 255);
    run(20);
    expect(
      frames(media.peers[0])
        .slice(speaking.length)
        .every((f) => f.mouth.open === after[0]!.mouth.open),
    ).toBe(true);
    session.close('ended_by_client');
  });

  it('a viewer that wants video again gets rendered frames; the animation stream stops', async () => {
    const { session, media, run, calls } = build();
    await session.connectViewer('v1', CLIENT_OFFER, []);
    await settle();
    run(20);
    const sent = session.animationFramesSent;
    expect(sent).toBeGreaterThan(0);
    await session.connectViewer('v2', VIDEO_OFFER, []);
    await settle();
    run(40);
    expect(session.animationFramesSent).toBe(sent);
    expect(media.peers[1]!.binary).toHaveLength(0);
    expect(calls.renderI420).toBeGreaterThanOrEqual(10);
    expect(calls.written).toBe(calls.renderI420);
    await session.connectViewer('v3', CLIENT_OFFER, []); // and back
    await settle();
    const rendered = calls.renderI420;
    run(40);
    expect(calls.renderI420).toBe(rendered);
    expect(media.peers[2]!.binary.length).toBeGreaterThanOrEqual(10);
    session.close('ended_by_client');
  });

  it("sends a video avatar's pick from its renderer, without drawing", async () => {
    const pick = { baseFrame: 12, a: 300, wa: 0.75, b: 301, wb: 0.25, fade: 1 };
    const { session, media, run, calls } = build(countingVideo(pick));
    await session.connectViewer('v1', CLIENT_OFFER, []);
    await settle();
    run(40);
    expect(calls.renderI420).toBe(0);
    expect(calls.pick).toBe(session.animationFramesSent);
    const got = frames(media.peers[0]);
    expect(media.peers[0]!.binary.every((b) => b.byteLength === 33)).toBe(true);
    expect(got[0]!.video).toMatchObject({ baseFrame: 12, a: 300, b: 301, fade: 1 });
    session.close('ended_by_client');
  });

  it('an avatar kind the operator does not let browsers draw: audio only, and one notice after hello', async () => {
    const pick = { baseFrame: 1, a: 2, wa: 1, b: 3, wb: 0, fade: 0 };
    const { session, media, run, calls } = build(countingVideo(pick), {
      clientRender: false,
      avatarKind: 'video',
    });
    await session.connectViewer('v1', CLIENT_OFFER, []);
    await settle();
    session.sayText({ turnId: 't1', text: 'Still heard.', isFinal: true });
    run(50);
    const peer = media.peers[0]!;
    expect(peer.binary).toHaveLength(0);
    expect(calls).toEqual({ render: 0, renderI420: 0, pick: 0, written: 0 });
    expect(media.audioSink.chunks).toBe(50); // the audio still flows, and speech plays
    expect(peer.sent.map((m) => m.type)).toEqual(['hello', 'notice', 'speakingStart', 'speakingEnd']);
    expect(peer.sent[1]).toMatchObject({ type: 'notice', code: NOTICE_CODE.CLIENT_RENDER_UNAVAILABLE });
    expect((peer.sent[1] as { message: string }).message).toMatch(/video avatars.*render: 'video'/);
    // a viewer with video is served as ever, without a notice
    await session.connectViewer('v2', VIDEO_OFFER, []);
    await settle();
    run(40);
    expect(calls.renderI420).toBeGreaterThanOrEqual(10);
    expect(media.peers[1]!.sent.some((m) => m.type === 'notice')).toBe(false);
    session.close('ended_by_client');
  });

  it('an allowed kind sends no notice', async () => {
    const { session, media, run } = build(countingVideo(), { clientRender: true, avatarKind: 'vector' });
    await session.connectViewer('v1', CLIENT_OFFER, []);
    await settle();
    run(10);
    expect(media.peers[0]!.binary.length).toBeGreaterThan(0);
    expect(media.peers[0]!.sent.map((m) => m.type)).toEqual(['hello']);
    session.close('ended_by_client');
  });

  it('speech waits for the ready of a viewer without video, as for one with video', async () => {
    const { session, media, run } = build();
    session.sayText({ turnId: 't1', text: 'Hello there.', isFinal: true });
    run(5);
    expect(session.playingTurn).toBeUndefined();
    await session.connectViewer('v1', CLIENT_OFFER, []);
    expect(session.playingTurn).toBeUndefined(); // connected, not yet ready
    await settle(); // the null peer says ready (a client-render page: on its first drawn frame)
    expect(session.playingTurn).toBe('t1');
    run(8);
    expect(frames(media.peers[0]).some((f) => f.speaking)).toBe(true);
    session.close('ended_by_client');
  });
});
