/** How a process's figures moved over a long run (soak.bench-run.ts): start, end, change, slope. */
import type { ProcessFigures } from '../lib/process-tree.js';

export interface Growth {
  /** Resident memory at the start (median of the first five samples) and the end (the last five). */
  rssStartMb: number;
  rssEndMb: number;
  rssChangePct: number;
  /** Least-squares slope of resident memory over the whole run, MB per hour. */
  rssMbPerHour: number;
  fdsStart: number;
  fdsEnd: number;
  threadsStart: number;
  threadsEnd: number;
}

/** Samples at the ends that a start or end figure is the median of. */
const ENDS = 5;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Least-squares slope of y over x; 0 with fewer than two distinct x. */
export function slope(points: Array<[number, number]>): number {
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / sxx;
}

/** A process's growth over its samples (in time order; at least one). */
export function growth(samples: Array<{ minute: number; figures: ProcessFigures }>): Growth {
  const head = samples.slice(0, ENDS).map((s) => s.figures);
  const tail = samples.slice(-ENDS).map((s) => s.figures);
  const rssStartMb = median(head.map((f) => f.rssMb));
  const rssEndMb = median(tail.map((f) => f.rssMb));
  return {
    rssStartMb,
    rssEndMb,
    rssChangePct: ((rssEndMb - rssStartMb) / rssStartMb) * 100,
    rssMbPerHour: slope(samples.map((s) => [s.minute / 60, s.figures.rssMb])),
    fdsStart: median(head.map((f) => f.fds)),
    fdsEnd: median(tail.map((f) => f.fds)),
    threadsStart: median(head.map((f) => f.threads)),
    threadsEnd: median(tail.map((f) => f.threads)),
  };
}
