/**
 * A worker thread that makes a photo avatar's tilt pictures ahead (photo-renderer.ts warm): each
 * one is 10–35 ms of Skia drawing and read-back, which on the media thread held every session's
 * tick while another session started (session-start-stall.test.ts). It reads the portrait, posts
 * each picture as it is made (its pixels transferred, not copied), nearest steps first, and exits.
 */
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { Image } from '@napi-rs/canvas';
import { surroundOf, tiltPicture, type TiltPlace } from './photo-tilt.js';

export interface TiltJob {
  /** The portrait's file. */
  file: string;
  place: TiltPlace;
  width: number;
  height: number;
  steps: number[];
}

/** One picture made: the step and its RGBA pixels. */
export interface TiltMade {
  step: number;
  px: Uint8ClampedArray;
  width: number;
  height: number;
}

const job = workerData as TiltJob;
const image = new Image();
image.src = readFileSync(job.file);
const surround = surroundOf(image);
for (const step of job.steps) {
  const made: TiltMade = { step, ...tiltPicture(surround, image, job.place, job, step) };
  parentPort?.postMessage(made, [made.px.buffer as ArrayBuffer]);
}
