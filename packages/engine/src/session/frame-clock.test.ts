import { describe, expect, it } from 'vitest';
import { FrameClock } from './frame-clock.js';

describe('FrameClock', () => {
  it('begins a frame every 4 ticks at 25 fps, on the session’s own phase', () => {
    const a = new FrameClock({ phase: 0, fps: 25 });
    const b = new FrameClock({ phase: 2, fps: 25 });
    const at = (c: FrameClock) => Array.from({ length: 12 }, (_, t) => c.at(t) ?? '.');
    expect(at(a)).toEqual(['render', '.', '.', '.', 'render', '.', '.', '.', 'render', '.', '.', '.']);
    expect(at(b)).toEqual(['render', '.', 'render', '.', '.', '.', 'render', '.', '.', '.', 'render', '.']);
  });

  it('sends a frame whose tick is late by less than a frame, and skips one a newer frame supersedes', () => {
    const c = new FrameClock({ phase: 0, fps: 25 });
    expect(c.at(0)).toBe('render');
    // a batch of 3 late ticks (4, 5, 6): frame 1 begins at tick 4 and no newer frame is due by 6
    expect(c.at(4, 2)).toBe('render');
    expect(c.at(5, 1)).toBeUndefined();
    expect(c.at(6, 0)).toBeUndefined();
    // a batch of 6 ticks (8..13): frame 2 at tick 8 is superseded by frame 3 at tick 12
    expect(c.at(8, 5)).toBe('skip');
    for (const t of [9, 10, 11]) expect(c.at(t, 13 - t)).toBeUndefined();
    expect(c.at(12, 1)).toBe('render');
    expect(c.lastFrame).toBe(3);
  });

  it('begins a frame on the tick speech starts, between two of the cadence, which then goes on as before', () => {
    const c = new FrameClock({ phase: 0, fps: 25 });
    const at = (t: number, starts = false): string => {
      if (starts) c.speechStarts();
      return c.at(t) ?? '.';
    };
    const ticks = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((t) => at(t, t === 2));
    expect(ticks).toEqual(['render', '.', 'render', '.', 'render', '.', '.', '.', 'render']);
    // on a tick that begins a frame anyway it is that one frame; it does not carry over
    c.speechStarts();
    expect(c.at(12)).toBe('render');
    expect(c.at(13)).toBeUndefined();
  });

  it('skips a speech-start frame that a newer frame of the same late batch supersedes', () => {
    const c = new FrameClock({ phase: 0, fps: 25 });
    expect(c.at(0)).toBe('render');
    c.speechStarts();
    expect(c.at(2, 3)).toBe('skip'); // frame 1 begins at tick 4, within the batch
    expect(c.at(3, 2)).toBeUndefined();
    expect(c.at(4, 1)).toBe('render');
  });
});
