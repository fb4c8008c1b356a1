import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { answerCandidatesReady, GATHER_TIMEOUT_MS, UDP_SETTLE_MS, type GatheringPeer } from './gathering.js';

/** A peer whose gathering the test drives. */
class Peer implements GatheringPeer {
  iceGatheringState: GatheringPeer['iceGatheringState'] = 'gathering';
  onicecandidate: GatheringPeer['onicecandidate'] = null;
  onicegatheringstatechange: GatheringPeer['onicegatheringstatechange'] = null;
  found(candidate: string | null): void {
    this.onicecandidate?.({ candidate: candidate === null ? null : { candidate } });
  }
  complete(): void {
    this.iceGatheringState = 'complete';
    this.onicegatheringstatechange?.();
  }
}

const udp = (ip: string) => `candidate:1 1 udp 2122260223 ${ip} 40249 typ host generation 0`;
const tcp = (ip: string) => `candidate:2 1 tcp 1518280447 ${ip} 39427 typ host tcptype passive`;

/** Whether the promise has settled after the timers advanced by `ms`. */
async function settledAfter(p: Promise<void>, ms: number): Promise<boolean> {
  let settled = false;
  void p.then(() => (settled = true));
  await vi.advanceTimersByTimeAsync(ms);
  return settled;
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('answerCandidatesReady', () => {
  it('resolves shortly after the last UDP candidate, not at completion 100 ms later; its handlers are freed', async () => {
    const pc = new Peer();
    const ready = answerCandidatesReady(pc);
    pc.found(udp('10.99.0.2'));
    expect(await settledAfter(ready, UDP_SETTLE_MS - 1)).toBe(false);
    pc.found(udp('127.0.0.1')); // another interface: waits for it to settle too
    expect(await settledAfter(ready, UDP_SETTLE_MS - 1)).toBe(false);
    expect(await settledAfter(ready, 1)).toBe(true);
    expect(pc.onicecandidate).toBeNull();
    expect(pc.onicegatheringstatechange).toBeNull();
  });

  it('TCP candidates alone do not make it ready; completion does', async () => {
    const pc = new Peer();
    const ready = answerCandidatesReady(pc);
    pc.found(tcp('10.99.0.2'));
    expect(await settledAfter(ready, 100)).toBe(false);
    pc.complete();
    expect(await settledAfter(ready, 0)).toBe(true);
  });

  it('gives up waiting after GATHER_TIMEOUT_MS; a peer already complete is ready at once', async () => {
    const pc = new Peer();
    const ready = answerCandidatesReady(pc);
    expect(await settledAfter(ready, GATHER_TIMEOUT_MS - 1)).toBe(false);
    expect(await settledAfter(ready, 1)).toBe(true);
    pc.iceGatheringState = 'complete';
    expect(await settledAfter(answerCandidatesReady(pc), 0)).toBe(true);
  });
});
