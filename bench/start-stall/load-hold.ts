/**
 * The longest the event loop is held while a video pack loads, in this process: the synchronous
 * path (loadVideoPackSync: what a session's start did before issue 29, and what tools still do)
 * against the session's path (loadVideoPack: async reads, the scaling on a worker thread), measured
 * as the longest gap between turns of a 1 ms timer chain. Free of the other processes' frames and
 * encoders, so a cleaner figure than a viewer's gaps on a shared machine (yet the OS's scheduling
 * of a loaded machine shows in it too: an idle wait is measured beside, as the floor).
 */
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
  /** The same probe over a 50 ms idle wait: the machine's own floor. */
  idleP50Ms: number;
  idleMaxMs: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The longest time between two turns of a 1 ms timer chain while `load` runs. (perf_hooks'
 * monitorEventLoopDelay was tried first: its maximum missed synchronous loads of 200 ms here.)
 */
async function holdMs(load: () => VideoPackLease | Promise<VideoPackLease>): Promise<number> {
  await sleep(10);
  let last = performance.now();
  let max = 0;
  let on = true;
  const turn = (): void => {
    const now = performance.now();
    max = Math.max(max, now - last);
    last = now;
    if (on) setTimeout(turn, 1);
  };
  setTimeout(turn, 1);
  await sleep(10);
  max = 0;
  const lease = await load();
  await sleep(5); // the chain's next turn sees the end of a synchronous load
  on = false;
  lease.release();
  return max;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** `reps` loads each way, alternating, of the pack in `dir` at `size` ("WxH"). */
export async function measureHold(dir: string, pack: string, size: string, reps: number): Promise<HoldRow> {
  const [width, height] = size.split('x').map(Number) as [number, number];
  const out = { width, height };
  const sync: number[] = [];
  const async_: number[] = [];
  const idle: number[] = [];
  const nothing = { pack: undefined as never, release: () => undefined };
  for (let k = 0; k < reps; k++) {
    sync.push(await holdMs(() => loadVideoPackSync(dir, out)));
    async_.push(await holdMs(() => loadVideoPack(dir, out)));
    idle.push(await holdMs(() => sleep(50).then(() => nothing)));
  }
  const r1 = (x: number): number => +x.toFixed(1);
  return {
    pack,
    size,
    syncP50Ms: r1(median(sync)),
    syncMaxMs: r1(Math.max(...sync)),
    asyncP50Ms: r1(median(async_)),
    asyncMaxMs: r1(Math.max(...async_)),
    idleP50Ms: r1(median(idle)),
    idleMaxMs: r1(Math.max(...idle)),
  };
}
