import { afterEach, expect, it, vi } from 'vitest';
import { MediaWatchdog, REPROBE_MS, STALL_MS, videoPackets } from './media-watchdog.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A peer connection whose video packet count the test moves. */
function fakePeer() {
  const peer = {
    packets: 0,
    getStats: () =>
      Promise.resolve(
        new Map([
          ['v', { type: 'inbound-rtp', kind: 'video', packetsReceived: peer.packets }],
          ['a', { type: 'inbound-rtp', kind: 'audio', packetsReceived: 999 }],
        ]) as unknown as RTCStatsReport,
      ),
  };
  return peer;
}

const step = async (ms: number) => {
  await vi.advanceTimersByTimeAsync(ms);
};

it('asks once the video has stopped for STALL_MS, again every REPROBE_MS while it stays stopped', async () => {
  vi.useFakeTimers();
  const peer = fakePeer();
  const onStall = vi.fn();
  const w = new MediaWatchdog(videoPackets(peer), onStall, () => Date.now());
  await step(5000);
  expect(onStall).not.toHaveBeenCalled(); // no video yet: nothing to miss
  for (let i = 0; i < 6; i++) {
    peer.packets += 12;
    await step(500);
  }
  expect(onStall).not.toHaveBeenCalled(); // flowing
  await step(STALL_MS + 500);
  expect(onStall).toHaveBeenCalledTimes(1);
  await step(REPROBE_MS);
  expect(onStall).toHaveBeenCalledTimes(2);
  peer.packets += 5; // flowing again: quiet, and armed for the next stall
  await step(500);
  await step(1000);
  expect(onStall).toHaveBeenCalledTimes(2);
  await step(STALL_MS);
  expect(onStall).toHaveBeenCalledTimes(3);
  w.stop();
  await step(10_000);
  expect(onStall).toHaveBeenCalledTimes(3);
});
