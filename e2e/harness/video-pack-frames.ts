/**
 * A video avatar's received frames against its pack's files: the frame Chromium shows as luma
 * (BT.601 limited range, what the engine stores) at the pack's size, and the pack's base frame
 * (base.i420) nearest it outside the lower face. Read from the outside: video.json and base.i420.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCanvas, Image } from '@napi-rs/canvas';
import type { Page } from 'playwright-core';

/** What is read of the pack's video.json (packages/engine/src/video/pack.ts VideoIndex). */
export interface PackIndex {
  size: number;
  base: { frames: number; toFrame: Array<[number, number, number, number]> };
  canonical: { landmarks: Array<[number, number]> };
  library: { box: { x: number; y: number; width: number; height: number } };
}
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface PackFrames {
  index: PackIndex;
  /** Canonical points through base frame i's placement, as a box padded by `pad`. */
  boxOf(i: number, pts: Array<[number, number]>, pad: number): Box;
  /** The lower-face box the renderer may touch in base frame i, padded. */
  lowerFace(i: number): Box;
  /** Mean luma difference of a frame and base frame i in `box` (inside) or outside it. */
  mad(frame: Float32Array, i: number, box: Box, inside: boolean): number;
  /** The base frame nearest a received one outside the lower face, and that difference. */
  nearestBase(frame: Float32Array): { i: number; mad: number };
}

export function packFrames(dir: string): PackFrames {
  const index = JSON.parse(readFileSync(join(dir, 'video.json'), 'utf8')) as PackIndex;
  const base = readFileSync(join(dir, 'base.i420'));
  const size = index.size;
  const frameBytes = size * size * 1.5;
  const boxOf = (i: number, pts: Array<[number, number]>, pad: number): Box => {
    const [a, b, tx, ty] = index.base.toFrame[i]!;
    const xs = pts.map(([x, y]) => a * x - b * y + tx);
    const ys = pts.map(([x, y]) => b * x + a * y + ty);
    const x = Math.max(0, Math.floor(Math.min(...xs) - pad));
    const y = Math.max(0, Math.floor(Math.min(...ys) - pad));
    const w = Math.min(size, Math.ceil(Math.max(...xs) + pad)) - x;
    return { x, y, w, h: Math.min(size, Math.ceil(Math.max(...ys) + pad)) - y };
  };
  const lowerFace = (i: number): Box => {
    const { x, y, width, height } = index.library.box;
    const corners: Array<[number, number]> = [
      [x, y],
      [x + width, y],
      [x, y + height],
      [x + width, y + height],
    ];
    return boxOf(i, corners, 6);
  };
  const mad = (frame: Float32Array, i: number, box: Box, inside: boolean): number => {
    let sum = 0;
    let n = 0;
    for (let y = 0; y < size; y += 2)
      for (let x = 0; x < size; x += 2) {
        const within = x >= box.x && x < box.x + box.w && y >= box.y && y < box.y + box.h;
        if (within !== inside) continue;
        sum += Math.abs(frame[y * size + x]! - base[i * frameBytes + y * size + x]!);
        n++;
      }
    return n ? sum / n : NaN;
  };
  const nearestBase = (frame: Float32Array): { i: number; mad: number } => {
    let best = { i: -1, mad: Infinity };
    for (let i = 0; i < index.base.frames; i++) {
      const d = mad(frame, i, lowerFace(i), false);
      if (d < best.mad) best = { i, mad: d };
    }
    return best;
  };
  return { index, boxOf, lowerFace, mad, nearestBase };
}

/** The frame Chromium shows (the harness page's video) as RGBA, scaled to size×size. */
export async function grabRgba(page: Page, size: number): Promise<Uint8ClampedArray> {
  const url = await page.evaluate(() => {
    const v = (window as unknown as { mpTest: { video: HTMLVideoElement } }).mpTest.video;
    const c = document.createElement('canvas');
    c.width = v.videoWidth;
    c.height = v.videoHeight;
    c.getContext('2d')!.drawImage(v, 0, 0);
    return c.toDataURL('image/png');
  });
  const img = new Image();
  img.src = Buffer.from(url.split(',')[1]!, 'base64');
  const c = createCanvas(size, size);
  const ctx = c.getContext('2d');
  ctx.drawImage(img, 0, 0, size, size);
  return ctx.getImageData(0, 0, size, size).data;
}

/** The frame Chromium shows as luma (BT.601 limited range), size×size. */
export async function grabLuma(page: Page, size: number): Promise<Float32Array> {
  const d = await grabRgba(page, size);
  const y = new Float32Array(size * size);
  for (let i = 0; i < y.length; i++)
    y[i] = 16 + 0.257 * d[4 * i]! + 0.504 * d[4 * i + 1]! + 0.098 * d[4 * i + 2]!;
  return y;
}
