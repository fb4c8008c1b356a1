/**
 * RGBA → I420 for one region of a kept I420 frame (wrtc-media.ts's writeRgbaRegion): the region is
 * converted on its own by the injected converter (libyuv's in an engine process) and its rows laid
 * into the frame's three planes. With the region on even pixel boundaries each 2×2 chroma block
 * lies wholly inside or outside it, so the frame ends up exactly as if it had been converted whole.
 */
import type { FrameRegion } from '../contract/media.js';

interface Image<T> {
  width: number;
  height: number;
  data: T;
}

/** Whole-image RGBA → I420 (Y, then U, then V, each plane's rows packed). */
export type RgbaToI420 = (rgba: Image<Uint8ClampedArray>, out: Image<Uint8Array>) => void;

export class I420Region {
  readonly #width: number;
  readonly #height: number;
  readonly #convert: RgbaToI420;
  /** The region's own I420 (a new one when the region's size changes). */
  #scratch = new Uint8Array(0);

  constructor(size: { width: number; height: number }, convert: RgbaToI420) {
    this.#width = size.width;
    this.#height = size.height;
    this.#convert = convert;
  }

  /** Converts `rgba` (the region's pixels, row after row) into `region` of `frame`. */
  convert(region: FrameRegion, rgba: Uint8ClampedArray, frame: Uint8Array): void {
    const W = this.#width;
    const H = this.#height;
    const { x, y, width: w, height: h } = region;
    if (x % 2 || y % 2 || w % 2 || h % 2 || x < 0 || y < 0 || x + w > W || y + h > H)
      throw new RangeError(`the region ${w}×${h} at ${x},${y} is not on even pixels inside ${W}×${H}`);
    if (rgba.length !== w * h * 4)
      throw new RangeError(`the region's RGBA has ${rgba.length} bytes, not ${w * h * 4}`);
    if (w === W && h === H) {
      this.#convert({ width: W, height: H, data: rgba }, { width: W, height: H, data: frame });
      return;
    }
    const size = (w * h * 3) / 2;
    // exactly the region's size: libyuv's binding reads the whole buffer's length, not the view's
    if (this.#scratch.length !== size) this.#scratch = new Uint8Array(size);
    const small = this.#scratch;
    this.#convert({ width: w, height: h, data: rgba }, { width: w, height: h, data: small });
    for (let row = 0; row < h; row++) frame.set(small.subarray(row * w, row * w + w), (y + row) * W + x);
    const cw = w / 2;
    const ch = h / 2;
    const CW = W / 2;
    const uFrame = W * H;
    const vFrame = uFrame + (W * H) / 4;
    const uSmall = w * h;
    const vSmall = uSmall + cw * ch;
    for (let row = 0; row < ch; row++) {
      const at = (y / 2 + row) * CW + x / 2;
      frame.set(small.subarray(uSmall + row * cw, uSmall + row * cw + cw), uFrame + at);
      frame.set(small.subarray(vSmall + row * cw, vSmall + row * cw + cw), vFrame + at);
    }
  }
}
