/**
 * Video avatar packs resident in memory, shared by every session of the engine process
 * (docs/design.md "Video avatars"): per pack (its video.json's path and mtime) and output size,
 * the pack's files, the layout at the output size and the base frames scaled to it.
 *
 * A session's start loads them off the media tick (loadVideoPack): the files are read
 * asynchronously (video/pack.ts readVideoPackAsync: the reads run on libuv's threads), the layout
 * is made in one short slice after an event-loop turn, and the base frames, when the output size
 * is not the pack's, are scaled by a worker thread (video-scale-worker.ts: ≈ 20 ms a frame at 768²,
 * too long for a slice), so the media scheduler's 10 ms ticks keep running for the process's
 * other sessions. Sessions
 * starting with the same pack share one load; the pack is dropped when its last user releases it;
 * a failed load is forgotten, so the next start reads the files again.
 *
 * Tools, tests and benchmarks that render outside a session may load synchronously
 * (loadVideoPackSync); they share a resident pack with sessions.
 */
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { scaleI420Cover, videoLayout, type VideoLayout } from '@mouthpiece/draw';
import {
  i420Bytes,
  i420View,
  readVideoPack,
  readVideoPackAsync,
  VIDEO_FILES,
  type VideoPackData,
} from '../video/pack.js';
import type { ScaleJob } from './video-scale-worker.js';
import { nextTurn } from './turns.js';

/** One pack at one output size, as every renderer of it reads it. */
export interface SharedVideoPack {
  /** The crops, the transforms and rectangles at the output size, the seam mask. */
  layout: VideoLayout;
  /** The pack's base frames at the pack's size; dropped once every frame is at the output size. */
  packBase: Uint8Array | undefined;
  /** Base frames at the output size (views of the pack's when the sizes agree). */
  frames: Array<Uint8Array | undefined>;
}

/** One user's hold on a resident pack: release() once (again is a no-op) when done with it. */
export interface VideoPackLease {
  readonly pack: SharedVideoPack;
  release(): void;
}

export type VideoPackState = 'absent' | 'loading' | 'resident';

interface Entry {
  /** Settles when the pack is resident, or its load failed. */
  ready: Promise<SharedVideoPack>;
  pack: SharedVideoPack | undefined;
  users: number;
}

type Size = { width: number; height: number };

const entries = new Map<string, Entry>();

/** Loads started since the process began (each one reads the pack's files). */
export const videoPackLoads = { count: 0 };

function keyOf(dir: string, mtimeMs: number, { width, height }: Size): string {
  return `${join(dir, VIDEO_FILES.index)}:${mtimeMs}@${width}x${height}`;
}

/**
 * The pack in `dir` at `size`, resident: shared with every other user of the same pack and size,
 * loaded (off the tick) when no one holds it. Rejects when a file is missing, unreadable or the
 * wrong size; the next call then tries again.
 */
export async function loadVideoPack(dir: string, size: Size): Promise<VideoPackLease> {
  const key = keyOf(dir, (await stat(join(dir, VIDEO_FILES.index))).mtimeMs, size);
  let entry = entries.get(key);
  if (!entry) {
    const e: Entry = { ready: prepare(dir, size), pack: undefined, users: 0 };
    e.ready.then(
      (pack) => {
        e.pack = pack;
      },
      () => {
        if (entries.get(key) === e) entries.delete(key);
      },
    );
    entries.set(key, e);
    entry = e;
  }
  entry.users++;
  try {
    await entry.ready;
  } catch (err) {
    entry.users--;
    throw err;
  }
  return leaseOf(key, entry);
}

/**
 * loadVideoPack for code that renders outside a session (tools, tests, benchmarks): reads and
 * scales synchronously unless the pack is resident. Never call it on a session's path.
 */
export function loadVideoPackSync(dir: string, size: Size): VideoPackLease {
  const key = keyOf(dir, statSync(join(dir, VIDEO_FILES.index)).mtimeMs, size);
  const found = entries.get(key);
  if (found?.pack) {
    found.users++;
    return leaseOf(key, found);
  }
  videoPackLoads.count++;
  const pack = shape(readVideoPack(dir), size);
  for (let i = 0; i < pack.frames.length; i++) frameAt(pack, i, size.width, size.height);
  if (found) return { pack, release: () => undefined }; // a session's load is under way: not shared
  const entry: Entry = { ready: Promise.resolve(pack), pack, users: 1 };
  entries.set(key, entry);
  return leaseOf(key, entry);
}

/** Whether the pack in `dir` at `size` is held by this process, and whether it is ready. */
export function videoPackState(dir: string, size: Size): VideoPackState {
  const entry = entries.get(keyOf(dir, statSync(join(dir, VIDEO_FILES.index)).mtimeMs, size));
  return !entry ? 'absent' : entry.pack ? 'resident' : 'loading';
}

function leaseOf(key: string, entry: Entry): VideoPackLease {
  let released = false;
  return {
    pack: entry.pack!,
    release() {
      if (released) return;
      released = true;
      if (--entry.users === 0 && entries.get(key) === entry) entries.delete(key);
    },
  };
}

/** Reads the files, lays the pack out (one slice), and has a worker thread scale the base frames. */
async function prepare(dir: string, size: Size): Promise<SharedVideoPack> {
  videoPackLoads.count++;
  const data = await readVideoPackAsync(dir);
  await nextTurn();
  const pack = shape(data, size);
  if (!pack.packBase) return pack; // the output's size: the frames are views of the pack's
  const { width, height } = size;
  const scaled = await scaleInWorker(pack.packBase, data.index.size, pack.frames.length, size);
  const bytes = i420Bytes(width, height);
  pack.frames = pack.frames.map((_, i) => scaled.subarray(i * bytes, (i + 1) * bytes));
  pack.packBase = undefined;
  return pack;
}

const SCALE_WORKER = import.meta.url.endsWith('.ts')
  ? new URL('../../dist/render/video-scale-worker.js', import.meta.url) // tests run from src/
  : new URL('./video-scale-worker.js', import.meta.url);

/** Every base frame scaled to `size` by a worker thread (video-scale-worker.ts), into shared memory. */
function scaleInWorker(base: Uint8Array, packSize: number, frames: number, size: Size): Promise<Uint8Array> {
  if (!(base.buffer instanceof SharedArrayBuffer))
    throw new Error('the base frames must be in shared memory');
  const out = new SharedArrayBuffer(frames * i420Bytes(size.width, size.height));
  const job: ScaleJob = { base: base.buffer, size: packSize, frames, out, ...size };
  return new Promise((resolve, reject) => {
    const worker = new Worker(SCALE_WORKER, { workerData: job });
    worker.once('message', () => resolve(new Uint8Array(out)));
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(new Error(`the base-frame scaler exited (${code}) before it was done`)),
    );
  });
}

/** The layout at the output size, and the base frames as views when the sizes agree. */
function shape({ index, base, mouths }: VideoPackData, { width, height }: Size): SharedVideoPack {
  const same = width === index.size && height === index.size;
  const frameBytes = i420Bytes(index.size, index.size);
  return {
    layout: videoLayout(index, mouths, { width, height }),
    packBase: same ? undefined : base,
    frames: Array.from({ length: index.base.frames }, (_, i) =>
      same ? base.subarray(i * frameBytes, (i + 1) * frameBytes) : undefined,
    ),
  };
}

/** Base frame i at the output size (scaled now if it is not yet: never, for a loaded pack). */
export function frameAt(s: SharedVideoPack, i: number, width: number, height: number): Uint8Array {
  let f = s.frames[i];
  if (f) return f;
  const size = s.layout.index.size;
  const packBase = s.packBase!;
  f = new Uint8Array(i420Bytes(width, height));
  scaleI420Cover(i420View(packBase, i * i420Bytes(size, size), size, size), i420View(f, 0, width, height));
  s.frames[i] = f;
  if (s.frames.every((x) => x !== undefined)) s.packBase = undefined;
  return f;
}
