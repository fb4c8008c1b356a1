import { describe, expect, it } from 'vitest';
import { growth, slope } from './growth.js';

const at = (minute: number, rssMb: number, fds = 30, threads = 11) => ({
  minute,
  figures: { rssMb, fds, threads },
});

describe('soak growth', () => {
  it('fits a slope per hour and compares medians of the ends, not single samples', () => {
    // 1 MB a minute, with one spike at each end that a single-sample comparison would read
    const samples = Array.from({ length: 60 }, (_, i) => at(i, 100 + i + (i === 0 || i === 59 ? 50 : 0)));
    const g = growth(samples);
    expect(g.rssStartMb).toBe(103); // median of 150, 101, 102, 103, 104
    expect(g.rssEndMb).toBe(157); // median of 155, 156, 157, 158, 209
    expect(g.rssChangePct).toBeCloseTo(52.43, 1);
    expect(g.rssMbPerHour).toBeGreaterThan(55);
    expect(g.rssMbPerHour).toBeLessThan(65);
  });

  it('reads a flat run as no growth, and descriptors and threads at both ends', () => {
    const g = growth([at(0, 200, 30, 11), at(1, 201, 31, 11), at(2, 199, 30, 12), at(3, 200, 40, 14)]);
    expect(g.rssChangePct).toBe(0);
    expect(g.rssMbPerHour).toBeCloseTo(-12, 6); // -0.2 MB a minute
    expect([g.fdsStart, g.fdsEnd, g.threadsStart, g.threadsEnd]).toEqual([30.5, 30.5, 11.5, 11.5]);
  });

  it('gives 0 for a slope with one point in time', () => {
    expect(slope([[1, 5]])).toBe(0);
  });
});
