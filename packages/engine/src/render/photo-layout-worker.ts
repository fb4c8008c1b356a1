/**
 * A worker thread that lays a photo avatar's portrait out for an output size (render/
 * photo-renderer.ts layoutInWorker): the rig's triangulation and sampling are 60–180 ms of
 * arithmetic for a stored portrait, too long for a slice of the media thread. It answers the
 * layout (plain arrays, copied back) and exits.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { photoLayout } from '@mouthpiece/draw';

export interface LayoutJob {
  landmarks: Array<[number, number]>;
  /** The portrait's RGBA pixels. */
  px: Uint8ClampedArray;
  portraitWidth: number;
  portraitHeight: number;
  width: number;
  height: number;
}

const job = workerData as LayoutJob;
parentPort?.postMessage(
  photoLayout(
    job.landmarks,
    { px: job.px, width: job.portraitWidth, height: job.portraitHeight },
    job.width,
    job.height,
  ),
);
