/**
 * What a viewer is told when its events channel opens (`hello`), made here for the real peer
 * (viewer-peer.ts) and the null one (testing/null-media.ts) alike: the session, the protocol
 * version, the turn playing, and how its animation stream is timed (packages/protocol's
 * StreamTiming): the stamps' clock, the session's frame interval, and the length of the Opus
 * packets this viewer's audio is sent in. The SDK places frames from these, so nothing of the
 * engine's timing is restated on the far side.
 */
import { DATA_CHANNEL_PROTOCOL, type ServerMessage } from '@mouthpiece/protocol';
import { SAMPLE_RATE_HZ } from '../clock/media-clock.js';
import type { OpusSendParams } from './sdp.js';

/**
 * How Opus is sent to a viewer that draws the avatar itself (its offer has no video): 40 ms
 * packets instead of libwebrtc's 20 halve the packets the engine's pacer and network threads (and
 * the viewer) handle per session, and at 64 kbit/s Opus codes speech in its CELT mode, which costs
 * the encoder thread half of what 32 kbit/s SILK/hybrid does (docs/design.md §13.8). Viewers with
 * video keep libwebrtc's defaults (LIBWEBRTC_OPUS_FRAME_MS, 32 kbit/s).
 */
export const CLIENT_RENDER_OPUS: OpusSendParams = { frameMs: 40, bitrateBps: 64_000 };
/** libwebrtc's own Opus packet length, which a viewer with video gets. */
export const LIBWEBRTC_OPUS_FRAME_MS = 20;

/** The Opus packet length of a viewer's audio: whether its offer has video decides it. */
export function audioPacketMs(hasVideo: boolean): number {
  return hasVideo ? LIBWEBRTC_OPUS_FRAME_MS : CLIENT_RENDER_OPUS.frameMs;
}

export function helloMessage(o: {
  sessionId: string;
  /** The session's video frame interval (1000 / fps). */
  frameMs: number;
  hasVideo: boolean;
  /** The turn playing now (a page reconnecting mid-turn learns it still plays). */
  speaking: string | undefined;
}): ServerMessage {
  return {
    type: 'hello',
    sessionId: o.sessionId,
    protocol: DATA_CHANNEL_PROTOCOL,
    ...(o.speaking !== undefined ? { speaking: o.speaking } : {}),
    stampRateHz: SAMPLE_RATE_HZ,
    frameMs: o.frameMs,
    audioPacketMs: audioPacketMs(o.hasVideo),
  };
}
