import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PlaybackGate } from './playback-gate.js';

let opened: number;
let gate: PlaybackGate;
beforeEach(() => {
  vi.useFakeTimers();
  opened = 0;
  gate = new PlaybackGate({ readyTimeoutMs: 5000, noChannelStartMs: 500 }, () => opened++);
});
afterEach(() => vi.useRealTimers());

describe('PlaybackGate: speech waits for the viewer', () => {
  it("opens on the viewer's ready, once", () => {
    gate.viewerConnected(true);
    expect(gate.open).toBe(false);
    gate.viewerReady();
    gate.viewerReady();
    expect(gate.open).toBe(true);
    expect(opened).toBe(1);
  });

  it('opens readyTimeoutMs after ICE when the page never says ready', () => {
    gate.viewerConnected(true);
    vi.advanceTimersByTime(4999);
    expect(gate.open).toBe(false);
    vi.advanceTimersByTime(1);
    expect(gate.open).toBe(true);
  });

  it('opens noChannelStartMs after ICE for players without an events channel', () => {
    gate.viewerConnected(false);
    vi.advanceTimersByTime(500);
    expect(gate.open).toBe(true);
  });

  it('a new viewer closes it unless speech is playing; close keeps it shut', () => {
    gate.viewerReady();
    gate.newViewer(true);
    expect(gate.open).toBe(true);
    gate.newViewer(false);
    expect(gate.open).toBe(false);
    gate.close();
    gate.viewerReady();
    vi.advanceTimersByTime(10_000);
    expect(gate.open).toBe(false);
    expect(opened).toBe(1);
  });
});
