/**
 * A worker thread that scales a video pack's base frames to the output size (render/
 * video-pack-cache.ts scaleInWorker): the scaling of a few hundred frames is seconds of CPU, and
 * one frame at 768² is ≈ 20 ms, too long for a slice of the media thread. Both buffers are shared
 * (SharedArrayBuffer), so nothing is copied; the worker answers `done` and exits.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { i420Bytes, i420View, scaleI420Cover } from '@mouthpiece/draw';

export interface ScaleJob {
  /** The pack's base frames, size×size I420 back to back. */
  base: SharedArrayBuffer;
  size: number;
  frames: number;
  /** Where frame i at width×height goes: at i × its byte count. */
  out: SharedArrayBuffer;
  width: number;
  height: number;
}

const job = workerData as ScaleJob;
const src = new Uint8Array(job.base);
const dst = new Uint8Array(job.out);
const inBytes = i420Bytes(job.size, job.size);
const outBytes = i420Bytes(job.width, job.height);
for (let i = 0; i < job.frames; i++)
  scaleI420Cover(
    i420View(src, i * inBytes, job.size, job.size),
    i420View(dst, i * outBytes, job.width, job.height),
  );
parentPort?.postMessage('done');
