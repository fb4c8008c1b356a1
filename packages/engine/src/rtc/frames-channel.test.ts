/**
 * The animation stream on a real libwebrtc peer (rtc/viewer-peer.ts, in an engine process; the
 * viewer is libwebrtc in a child process, testing/wrtc-viewer.ts): a viewer that opens the
 * `frames` channel, as the SDK's client rendering does, gets every animation frame there from the
 * moment it is open (the few before it, on `events`) and its control messages on `events`; one
 * that does not (an older SDK) gets the frames on `events`, as before. Both are greeted with the
 * timing of their stream. Needs the build (dist/).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAnimationFrame, type ServerMessage } from '@mouthpiece/protocol';
import { createEnginePool } from '../host/pool.js';
import type { EngineHost } from '../contract/types.js';
import { wrtcViewer, type WrtcViewer } from '../testing/wrtc-viewer.js';
import { CLIENT_RENDER_OPUS } from './hello.js';

let host: EngineHost;
beforeAll(async () => {
  // an engine process that dies says how (its code or signal) in the test's output: one did
  // once mid-test in a full run (2026-11-29), with nothing to tell why
  host = await createEnginePool({
    processes: 1,
    logger: {
      info: () => undefined,
      warn: (fields, msg) => console.error(msg, fields),
      error: (fields, msg) => console.error(msg, fields),
    },
  });
}, 30_000);
afterAll(async () => {
  await host.close();
});

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function viewer(sessionId: string, frames: boolean): Promise<WrtcViewer> {
  const v = wrtcViewer({ video: false, frames });
  await v.connect(async (offerSdp) => {
    const viewerId = `v-${frames ? 'frames' : 'events'}`;
    return (await host.connectViewer(sessionId, { viewerId, offerSdp, iceServers: [] })).answerSdp;
  });
  return v;
}

const hello = (v: WrtcViewer) => v.messages.find((m) => m.type === 'hello');

describe('the frames channel', () => {
  it('carries the animation stream of a viewer that opens it; an older viewer gets it on events', async () => {
    const sessionId = 'frames-channel-1';
    await host.createSession({ sessionId, avatarId: 'amara', voiceId: 'en-us-female', voiceSpeed: 1 });
    const sdk = await viewer(sessionId, true);
    try {
      const onFrames = () => sdk.binaryChannels.filter((c) => c === 'frames').length;
      await until(() => onFrames() >= 25, 15_000, 'a second of animation frames on the frames channel');
      // (frames sent before the frames channel opened came on events; none after)
      const first = sdk.binaryChannels.indexOf('frames');
      expect(sdk.binaryChannels.slice(first).every((c) => c === 'frames')).toBe(true);
      expect(first).toBeLessThan(5);
      expect(sdk.binary.every((b) => decodeAnimationFrame(b) !== undefined)).toBe(true);
      // the engine's timing for this viewer: 25 fps, and the Opus packets a viewer that draws gets
      expect(hello(sdk)).toMatchObject<Partial<ServerMessage>>({
        stampRateHz: 48_000,
        frameMs: 40,
        audioPacketMs: CLIENT_RENDER_OPUS.frameMs,
      });
      await host.sayText(sessionId, { turnId: 't1', text: 'Frames apart.', isFinal: true });
      await until(
        () => sdk.messages.some((m) => m.type === 'speakingStart'),
        15_000,
        'speakingStart on events',
      );
    } finally {
      sdk.close();
    }
    const older = await viewer(sessionId, false);
    try {
      await until(() => older.binary.length >= 10, 15_000, 'animation frames on events');
      expect(new Set(older.binaryChannels)).toEqual(new Set(['events']));
      expect(hello(older)?.type).toBe('hello');
    } finally {
      older.close();
      await host.closeSession(sessionId, 'ended_by_client');
    }
  }, 60_000);
});
