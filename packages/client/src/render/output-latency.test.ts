/**
 * The output latency the frame clock adds: the connection's media-playout stats first (the mean
 * playout delay per sample over each interval), else an AudioContext's outputLatency read once by
 * a short-lived context, else the 10 ms guess; every reading clamped to a sane range.
 */
import { describe, expect, it } from 'vitest';
import { inboundAudio } from './client-render.js';
import {
  CONTEXT_PROBE_POLLS,
  ContextLatencyProbe,
  contextLatencyMs,
  MAX_OUTPUT_LATENCY_MS,
  playoutLatencyMs,
  playoutStats,
  saneOutputLatencyMs,
  type LatencyContext,
} from './output-latency.js';

/** A stats report of these entries (what RTCPeerConnection.getStats() answers, as Chromium 156 gave it). */
const report = (...entries: object[]) => ({
  forEach: (fn: (s: never) => void) => entries.forEach((e) => fn(e as never)),
});
const INBOUND = {
  type: 'inbound-rtp',
  kind: 'audio',
  jitterBufferDelay: 13305.6,
  jitterBufferEmittedCount: 139200,
  playoutId: 'AP',
};
const PLAYOUT = {
  id: 'AP',
  type: 'media-playout',
  kind: 'audio',
  totalPlayoutDelay: 4154.22,
  totalSamplesCount: 138915,
};

describe('saneOutputLatencyMs', () => {
  it('takes a positive finite reading, capped; nothing else', () => {
    expect(saneOutputLatencyMs(32)).toBe(32);
    expect(saneOutputLatencyMs(1000)).toBe(MAX_OUTPUT_LATENCY_MS);
    for (const v of [undefined, 0, -1, NaN, Infinity]) expect(saneOutputLatencyMs(v)).toBeUndefined();
  });
});

describe('playout stats', () => {
  it("the inbound audio's playout entry: its mean delay per sample played over each interval", () => {
    const a = playoutStats(report(INBOUND, PLAYOUT, { ...PLAYOUT, id: 'other', totalPlayoutDelay: 1 }), 'AP');
    expect(a).toEqual({ totalPlayoutDelay: 4154.22, totalSamplesCount: 138915 });
    expect(playoutLatencyMs(undefined, a!)).toBeCloseTo(29.9, 1); // (headless Chromium's figure)
    // the next 48000 samples played 45 ms each
    const b = {
      totalPlayoutDelay: a!.totalPlayoutDelay + 48000 * 0.045,
      totalSamplesCount: a!.totalSamplesCount + 48000,
    };
    expect(playoutLatencyMs(a, b)).toBeCloseTo(45, 6);
    expect(playoutLatencyMs(b, b)).toBeUndefined(); // nothing played: keep the figure
    expect(playoutLatencyMs(undefined, { totalPlayoutDelay: 9600, totalSamplesCount: 9600 })).toBe(
      MAX_OUTPUT_LATENCY_MS, // (1 s a sample: not believed beyond the cap)
    );
  });

  it('a report without media-playout (or without its counters) has none; inboundAudio names the playout', () => {
    expect(playoutStats(report(INBOUND), 'AP')).toBeUndefined();
    expect(playoutStats(report(INBOUND, { id: 'AP', type: 'media-playout' }), 'AP')).toBeUndefined();
    expect(playoutStats(report(PLAYOUT), undefined)).toBeDefined(); // (no playoutId: the only one)
    expect(inboundAudio(report(INBOUND))?.playoutId).toBe('AP');
    expect(inboundAudio(report({ ...INBOUND, playoutId: undefined }))).not.toHaveProperty('playoutId');
  });
});

/** An AudioContext as the probe sees it: its outputLatency and state set by the test. */
class FakeContext implements LatencyContext {
  outputLatency = 0;
  state: AudioContextState = 'running';
  closed = 0;
  close(): Promise<void> {
    this.closed++;
    this.state = 'closed';
    return Promise.resolve();
  }
}

describe('ContextLatencyProbe', () => {
  it('makes one context, reads outputLatency once it is known (not baseLatency), and closes it', () => {
    const made: FakeContext[] = [];
    const probe = new ContextLatencyProbe(() => {
      made.push(new FakeContext());
      return made.at(-1);
    });
    expect(probe.poll()).toBeUndefined(); // made: its output has not started (Chromium says 0)
    expect(probe.poll()).toBeUndefined();
    made[0]!.outputLatency = 0.032;
    expect(probe.poll()).toBe(32);
    expect(made[0]!.closed).toBe(1);
    expect(probe.done).toBe(true);
    expect(probe.poll()).toBeUndefined();
    expect(made.length).toBe(1);
    expect(contextLatencyMs({})).toBeUndefined(); // (a browser without outputLatency: Safari)
  });

  it('a context that does not run (no sound allowed yet) or says nothing is closed: the guess stays', () => {
    const suspended = new FakeContext();
    suspended.state = 'suspended';
    const a = new ContextLatencyProbe(() => suspended);
    a.poll();
    expect(a.poll()).toBeUndefined();
    expect([a.done, suspended.closed]).toEqual([true, 1]);

    const silent = new FakeContext();
    const b = new ContextLatencyProbe(() => silent);
    for (let i = 0; i <= CONTEXT_PROBE_POLLS; i++) expect(b.poll()).toBeUndefined();
    expect([b.done, silent.closed]).toEqual([true, 1]);

    const none = new ContextLatencyProbe(() => undefined); // (no AudioContext in this browser)
    expect(none.poll()).toBeUndefined();
    expect(none.done).toBe(true);
  });

  it('close() before a reading closes the context once', () => {
    const ctx = new FakeContext();
    const probe = new ContextLatencyProbe(() => ctx);
    probe.poll();
    probe.close();
    probe.close();
    expect(ctx.closed).toBe(1);
    expect(probe.poll()).toBeUndefined();
  });
});
