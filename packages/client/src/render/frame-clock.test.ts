import { DEFAULT_STREAM_TIMING, type AnimationFrame } from '@mouthpiece/protocol';
import { describe, expect, it } from 'vitest';
import {
  audioDelayMs,
  DEFAULT_REFRESH_MS,
  drawUntilMs,
  FrameClock,
  playoutLeadMs as leadWith,
  RefreshMeter,
} from './frame-clock.js';
import { DEFAULT_OUTPUT_LATENCY_MS, MAX_OUTPUT_LATENCY_MS } from './output-latency.js';

const REST = { blink: 0, headX: 0, headY: 0, tilt: 0, breath: 0, brow: 0, gazeX: 0, gazeY: 0 };
const MOUTH = { open: 0, width: 0, round: 0, teeth: 0, lipBite: 0, tongue: 0 };
const frame = (sampleIndex: number): AnimationFrame => ({
  sampleIndex,
  speaking: false,
  mouth: MOUTH,
  motion: REST,
});
/** 25 fps: frames 1920 samples (40 ms) apart. */
const FRAME = 1920;
/** The lead with the timing a clock has before any `hello` (the contract test checks it against the engine's). */
const playoutLeadMs = (audioDelay: number, output?: number) =>
  leadWith(DEFAULT_STREAM_TIMING, audioDelay, output);

describe('audioDelayMs', () => {
  it("is the jitter buffer's mean delay per emitted sample over the interval", () => {
    // seconds summed over every emitted sample: 48000 samples held 41.7 ms each, then 48000 held 75 ms
    const a = { jitterBufferDelay: 2000, jitterBufferEmittedCount: 48_000 };
    const b = { jitterBufferDelay: 5600, jitterBufferEmittedCount: 96_000 };
    expect(audioDelayMs(a, b)).toBeCloseTo(75, 6);
    expect(audioDelayMs(undefined, a)).toBeCloseTo(41.667, 2);
    expect(audioDelayMs(b, b)).toBeUndefined(); // nothing emitted: keep the figure
  });

  it('a frame plays at its arrival + the audio delay + output + what the timing says the server adds', () => {
    expect(playoutLeadMs(80) - playoutLeadMs(60)).toBe(20);
    expect(playoutLeadMs(60, 30) - playoutLeadMs(60)).toBe(30 - DEFAULT_OUTPUT_LATENCY_MS);
  });

  it("the clock's output latency: the default until measured, then the measured one, clamped", () => {
    const c = new FrameClock();
    c.push(frame(0), 1000);
    expect(c.outputLatency).toBe(DEFAULT_OUTPUT_LATENCY_MS);
    expect(c.dueMs(0)).toBe(1000 + playoutLeadMs(c.audioDelay));
    c.setOutputLatency(32);
    expect(c.dueMs(0)).toBe(1000 + playoutLeadMs(c.audioDelay, 32));
    for (const nonsense of [NaN, -5, 0, Infinity]) c.setOutputLatency(nonsense);
    expect(c.outputLatency).toBe(32); // (a reading that says nothing changes nothing)
    c.setOutputLatency(900);
    expect(c.outputLatency).toBe(MAX_OUTPUT_LATENCY_MS);
  });
});

describe('FrameClock', () => {
  it('maps stamps to the page clock by the least arrival offset, so a late frame keeps its place', () => {
    const c = new FrameClock();
    c.setAudioDelay(50);
    const lead = playoutLeadMs(50);
    c.push(frame(10 * FRAME), 1000); // 400 ms of stamps: offset 600
    c.push(frame(11 * FRAME), 1040);
    c.push(frame(12 * FRAME), 1110); // 30 ms late on the channel
    c.push(frame(13 * FRAME), 1120);
    expect(c.dueMs((12 * FRAME * 1000) / 48_000)).toBeCloseTo(480 + 600 + lead, 6);
    expect(c.take(1000 + lead - 1)).toBeUndefined(); // none due: hold
    expect(c.take(1000 + lead)?.sampleIndex).toBe(10 * FRAME);
    expect(c.take(1000 + lead + 10)).toBeUndefined();
    // two due at once: the newer is drawn, the older dropped
    expect(c.take(1080 + lead)?.sampleIndex).toBe(12 * FRAME);
    expect(c.queued).toBe(1);
  });

  it('a larger audio delay draws every frame later by as much', () => {
    const c = new FrameClock();
    c.push(frame(0), 0);
    c.setAudioDelay(20);
    const early = c.dueMs(0);
    c.setAudioDelay(90);
    expect(c.dueMs(0) - early).toBe(70);
    c.setAudioDelay(Number.NaN); // ignored
    expect(c.audioDelay).toBe(90);
  });

  it('stamps wrap at 2^32 without a jump', () => {
    const c = new FrameClock();
    c.setAudioDelay(0);
    const lead = playoutLeadMs(0);
    c.push(frame(2 ** 32 - FRAME), 0);
    c.push(frame(0), 40); // the next frame, after the wrap
    c.push(frame(FRAME), 80);
    expect(c.take(lead)?.sampleIndex).toBe(2 ** 32 - FRAME);
    expect(c.take(lead + 39)).toBeUndefined();
    expect(c.take(lead + 40)?.sampleIndex).toBe(0);
    expect(c.take(lead + 80)?.sampleIndex).toBe(FRAME);
  });

  it('a frame overtaken on the unordered channel is stale: dropped, the newer one stays due', () => {
    const c = new FrameClock();
    c.setAudioDelay(0);
    const lead = playoutLeadMs(0);
    c.push(frame(0), 0);
    c.push(frame(2 * FRAME), 80);
    c.push(frame(FRAME), 85); // sent before the one above, arrived after it
    expect(c.queued).toBe(2);
    expect(c.take(lead)?.sampleIndex).toBe(0);
    expect(c.take(lead + 79)).toBeUndefined();
    expect(c.take(lead + 80)?.sampleIndex).toBe(2 * FRAME);
  });

  it('reset() forgets the old path: a new connection maps anew', () => {
    const c = new FrameClock();
    c.setAudioDelay(0);
    c.push(frame(0), 0);
    c.reset();
    expect(c.queued).toBe(0);
    c.push(frame(FRAME), 5000); // 40 ms of stamps arriving at 5 s: offset 4960
    expect(c.dueMs(40)).toBe(5000 + playoutLeadMs(0));
  });
});

describe('drawing on display refreshes', () => {
  it('a callback takes the frames due before the middle of the refresh its drawing shows in', () => {
    // callback at 1000 ms, 60 Hz: the drawing shows from 1016.7 to 1033.3, its middle 1025
    expect(drawUntilMs(1000, 50 / 3)).toBeCloseTo(1025, 6);
    expect(drawUntilMs(1000, 10)).toBe(1015); // 100 Hz: shows 1010..1020
  });

  it('each frame shows at the refresh nearest its audio: never more than half a refresh off', () => {
    const c = new FrameClock();
    c.setAudioDelay(0);
    const lead = playoutLeadMs(0);
    const refreshMs = 50 / 3;
    for (let i = 0; i < 10; i++) c.push(frame(i * FRAME), i * 40); // due at lead + 40 i
    const shown = new Map<number, number>();
    for (let k = 0; k < 40; k++) {
      const callbackMs = k * refreshMs;
      const f = c.take(drawUntilMs(callbackMs, refreshMs));
      if (f) shown.set(f.sampleIndex / FRAME, callbackMs + refreshMs); // on screen one refresh later
    }
    expect(shown.size).toBeGreaterThan(8);
    for (const [i, showsAt] of shown) {
      const due = lead + 40 * i;
      expect(Math.abs(showsAt - due)).toBeLessThanOrEqual(refreshMs / 2 + 1e-9);
    }
  });
});

describe('RefreshMeter', () => {
  it('is the median gap between consecutive callbacks, 60 Hz until measured', () => {
    const m = new RefreshMeter();
    expect(m.refreshMs).toBe(DEFAULT_REFRESH_MS);
    for (const t of [0, 10, 20, 31, 40, 50]) m.tick(t); // 100 Hz, one late callback
    expect(m.refreshMs).toBe(10);
  });

  it('a pause (no callbacks while nothing was queued) is not a refresh interval', () => {
    const m = new RefreshMeter();
    m.tick(0);
    m.tick(8);
    m.pause();
    m.tick(500); // resumed: no gap counted
    m.tick(508);
    m.tick(2000); // a stalled page: too long to be a refresh
    expect(m.refreshMs).toBe(8);
  });
});
