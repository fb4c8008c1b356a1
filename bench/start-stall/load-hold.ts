/**
 * The longest the event loop is held while a video pack loads, in this process: the synchronous
 * path (loadVideoPackSync: what a session's start did before issue 29, and what tools still do)
 * against the session's path (loadVideoPack: async reads, sliced preparation), measured by
 * perf_hooks' event-loop delay monitor (1 ms resolution). Free of the other processes' frames and
 * encoders, so a cleaner figure than a viewer's gaps on a shared machine.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  loadVideoPack,
  loadVideoPackSync,
  type VideoPackLease,
} from '../../packages/engine/dist/render/video-pack-cache.js';

export interface HoldRow {
  pack: string;
  size: string;
  /** Per path: the median and the largest hold over the repetitions, ms. */
  syncP50Ms: number;
  syncMaxMs: number;
  asyncP50Ms: number;
  asyncMaxMs: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function holdMs(load: () => VideoPackLease | Promise<VideoPackLease>): Promise<number> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  await sleep(30);
  h.reset();
  const lease = await load();
  await sleep(5); // the monitor's next turn sees the end of a synchronous load
  h.disable();
  lease.release();
  return h.max / 1e6;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** `reps` loads each way, alternating, of the pack in `dir` at `size` ("WxH"). */
export async function measureHold(dir: string, pack: string, size: string, reps: number): Promise<HoldRow> {
  const [width, height] = size.split('x').map(Number) as [number, number];
  const out = { width, height };
  const sync: number[] = [];
  const async_: number[] = [];
  for (let k = 0; k < reps; k++) {
    sync.push(await holdMs(() => loadVideoPackSync(dir, out)));
    async_.push(await holdMs(() => loadVideoPack(dir, out)));
  }
  const r1 = (x: number): number => +x.toFixed(1);
  return {
    pack,
    size,
    syncP50Ms: r1(median(sync)),
    syncMaxMs: r1(Math.max(...sync)),
    asyncP50Ms: r1(median(async_)),
    asyncMaxMs: r1(Math.max(...async_)),
  };
}
