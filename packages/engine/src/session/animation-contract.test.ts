/**
 * The animation stream's contract across the seam (issue #32): the real engine session encodes
 * frames and greets its viewer with a real `hello`; the SDK's frame clock
 * (packages/client/src/render/frame-clock.ts, imported from the other side of the wire on purpose:
 * this test is the seam) reads that hello and places each frame. Each frame must be due exactly
 * when the audio sample it is stamped with is heard, followed sample by sample through what the
 * engine did: the tick that handed the sample's 10 ms chunk to the audio sink, the Opus packet that
 * holds it (packets of the length the engine sends this viewer leave once their last chunk is
 * handed over; at any alignment to the chunks), the network, the receiver's jitter buffer (which
 * plays a packet's samples one after the other: its stats' mean delay per sample counts that) and
 * the output device. At 15, 25 and 50 fps, as MOUTHPIECE_VIDEO_FPS may set.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeAnimationFrame,
  parseServerMessage,
  streamTiming,
  type AnimationFrame,
  type ServerMessage,
} from '@mouthpiece/protocol';
import { FrameClock } from '../../../client/src/render/frame-clock.js';
import { CHUNK_SAMPLES, SAMPLE_RATE_HZ, TICK_MS } from '../clock/media-clock.js';
import { CLIENT_RENDER_OPUS } from '../rtc/hello.js';
import { browserOffer } from '../testing/offers.js';
import { nullMedia } from '../testing/null-media.js';
import { timedSpeech } from '../testing/timed-speech.js';
import { EngineSession } from './engine-session.js';

/** The path's delays, any values: the network (frames and audio alike; some frames queue longer). */
const NET_MS = 7;
/** The jitter buffer holds each packet this long before its first sample plays. */
const JITTER_HOLD_MS = 45;
const OUTPUT_MS = 25;
/** The engine's Opus packet length for a viewer that draws (what it asks libwebrtc for). */
const PACKET_MS = CLIENT_RENDER_OPUS.frameMs;
const CHUNKS_PER_PACKET = PACKET_MS / TICK_MS;
/** What inbound-rtp's jitterBufferDelay / jitterBufferEmittedCount reads: the hold plus each sample's place in its packet, averaged. */
const JITTER_BUFFER_MS =
  JITTER_HOLD_MS + (((PACKET_MS * SAMPLE_RATE_HZ) / 1000 - 1) / 2 / SAMPLE_RATE_HZ) * 1000;
const settle = () => new Promise((r) => setImmediate(r));

async function stream(fps: number) {
  const media = nullMedia();
  /** When each 10 ms chunk was handed to the audio sink (the chunk k holds samples 480k…480k+479). */
  const handedAt: number[] = [];
  let nowMs = 0;
  const session = new EngineSession({
    sessionId: `contract-${fps}`,
    fps,
    readyTimeoutMs: 5000,
    noChannelStartMs: 500,
    emit: () => undefined,
    speech: timedSpeech({ msPerCharacter: 10, speed: 1 }),
    audioSink: { write: () => void handedAt.push(nowMs) },
    peerFactory: media.peerFactory,
  });
  await session.connectViewer('v1', browserOffer([]), []); // no video: it draws the avatar itself
  await settle();
  const peer = media.peers[0]!;
  const frames: Array<{ frame: AnimationFrame; arrivalMs: number }> = [];
  for (let tick = 0; tick < 300; tick++) {
    nowMs = tick * TICK_MS;
    const before = peer.binary.length;
    session.tick(tick);
    for (const bytes of peer.binary.slice(before)) {
      const queued = (tick * 7) % 3 === 0 ? 9 : 0; // some frames wait on the channel
      frames.push({ frame: decodeAnimationFrame(bytes)!, arrivalMs: nowMs + NET_MS + queued });
    }
  }
  session.close('ended_by_client');
  // the hello as the page reads it off the wire
  const hello = parseServerMessage(JSON.stringify(peer.sent.find((m) => m.type === 'hello')));
  return { hello, frames, handedAt };
}

/**
 * When sample `s` is heard, its packets `align` chunks off the first: its packet leaves when the
 * packet's last chunk is handed over; the sample plays its place in the packet after the packet's first.
 * Undefined when that packet had not left when the test stopped.
 */
function heardMs(s: number, handedAt: number[], align: number): number | undefined {
  const first =
    align + Math.floor((Math.floor(s / CHUNK_SAMPLES) - align) / CHUNKS_PER_PACKET) * CHUNKS_PER_PACKET;
  const left = handedAt[first + CHUNKS_PER_PACKET - 1];
  if (first < 0 || left === undefined) return undefined;
  const place = ((s - first * CHUNK_SAMPLES) / SAMPLE_RATE_HZ) * 1000;
  return left + NET_MS + JITTER_HOLD_MS + place + OUTPUT_MS;
}

describe('the animation stream, engine to SDK', () => {
  for (const fps of [15, 25, 50])
    it(`at ${fps} fps the SDK draws each frame when the engine's audio of its stamp is heard`, async () => {
      const { hello, frames, handedAt } = await stream(fps);
      expect(hello?.type).toBe('hello');
      const clock = new FrameClock();
      clock.setTiming(streamTiming(hello as Extract<ServerMessage, { type: 'hello' }>));
      clock.setAudioDelay(JITTER_BUFFER_MS);
      clock.setOutputLatency(OUTPUT_MS);
      expect(frames.length).toBeGreaterThanOrEqual(Math.floor(3 * fps) - 1);
      for (const { frame, arrivalMs } of frames) clock.push(frame, arrivalMs);
      const stampRateHz = clock.timing.stampRateHz;
      let checked = 0;
      for (let align = 0; align < CHUNKS_PER_PACKET; align++)
        for (const { frame } of frames) {
          const heard = heardMs(frame.sampleIndex, handedAt, align);
          if (heard === undefined) continue;
          const due = clock.dueMs((frame.sampleIndex / stampRateHz) * 1000);
          expect(due, `the frame stamped ${frame.sampleIndex}, packets at ${align}`).toBeCloseTo(heard, 1);
          checked++;
        }
      expect(checked).toBeGreaterThanOrEqual(CHUNKS_PER_PACKET * (frames.length - 3));
    });
});
