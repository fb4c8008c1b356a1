/**
 * Decodes a video avatar's encoded frames (base.ivf, mouths.ivf: VP9 in IVF, docs/design.md §13.6)
 * with WebCodecs into the raw I420 files they encode, frame after frame back to back — the very
 * bytes the player reads from base.i420 and mouths.i420 (video-frames.ts). Every frame is decoded
 * once, at load; each VideoFrame is copied out and closed at once. Any failure rejects, and the
 * pack loader then downloads the raw file instead (pack-loader.ts).
 */
import { isVp9KeyFrame, parseIvf } from './ivf.js';

/** Turns an encoded pack file into the raw file it encodes. */
export interface FrameDecoder {
  /** Whether this browser decodes `codec` (false without WebCodecs). */
  supports(codec: string): Promise<boolean>;
  /** The file's frames as I420, back to back; rejects on any failure. */
  decode(file: ArrayBuffer, codec: string): Promise<ArrayBuffer>;
}

/** Chunks handed to the decoder ahead of its output (it holds only a few frames of its own). */
const QUEUE_AHEAD = 4;
/** No decoder output for this long: the decoder is stuck, and the raw file is taken. */
const STALL_MS = 10_000;

export const webCodecsDecoder: FrameDecoder = {
  async supports(codec) {
    if (typeof VideoDecoder !== 'function' || typeof EncodedVideoChunk !== 'function') return false;
    try {
      return (await VideoDecoder.isConfigSupported({ codec })).supported === true;
    } catch {
      return false;
    }
  },
  decode: decodeIvf,
};

async function decodeIvf(file: ArrayBuffer, codec: string): Promise<ArrayBuffer> {
  const ivf = parseIvf(file);
  const { width, height, frames } = ivf;
  if (ivf.fourcc !== 'VP90') throw new Error(`an IVF file of ${ivf.fourcc}, not VP9`);
  if (width % 2 || height % 2) throw new Error(`frames of ${width}×${height}, not an even size`);
  if (!frames[0] || !isVp9KeyFrame(frames[0].data)) throw new Error('the first frame is not a key frame');
  const frameBytes = (width * height * 3) / 2;
  const out = new Uint8Array(frameBytes * frames.length);
  const filled = new Uint8Array(frames.length);
  const copies: Array<Promise<void>> = [];
  let failure: Error | undefined;
  let progress: (() => void) | undefined;
  const wake = (): void => progress?.();
  const fail = (err: unknown): void => {
    failure ??= err instanceof Error ? err : new Error(String(err));
    wake();
  };
  /** Throws the first failure (a closure: the callbacks set it while this function waits). */
  const check = (): void => {
    if (failure) throw failure;
  };

  const decoder = new VideoDecoder({
    output(frame) {
      const k = frame.timestamp;
      const copy =
        Number.isInteger(k) && k >= 0 && k < frames.length && !filled[k]
          ? copyI420(frame, out.subarray(k * frameBytes, (k + 1) * frameBytes), width, height)
          : Promise.reject(new Error(`a decoded frame stamped ${k}, unexpected`));
      if (k >= 0 && k < frames.length) filled[k] = 1;
      const done = copy.finally(() => frame.close());
      done.then(wake, fail);
      copies.push(done);
    },
    error: fail,
  });
  const stalled = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        failure ??= new Error(`the decoder gave no frame for ${STALL_MS} ms`);
        resolve();
      }, STALL_MS);
      progress = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  try {
    decoder.configure({ codec, codedWidth: width, codedHeight: height });
    decoder.addEventListener('dequeue', wake);
    for (const [k, f] of frames.entries()) {
      decoder.decode(
        new EncodedVideoChunk({ type: isVp9KeyFrame(f.data) ? 'key' : 'delta', timestamp: k, data: f.data }),
      );
      while (failure === undefined && decoder.decodeQueueSize > QUEUE_AHEAD) await stalled();
      check();
    }
    let flushed = false;
    void decoder.flush().then(() => {
      flushed = true;
      wake();
    }, fail);
    while (!flushed && failure === undefined) await stalled();
    check();
    await Promise.all(copies);
    check();
    if (!filled.every((v) => v === 1)) throw new Error('the decoder did not give every frame');
    return out.buffer;
  } finally {
    progress = undefined;
    if (decoder.state !== 'closed') decoder.close();
  }
}

/** Copies one decoded frame into `dest` as I420 (w×h luma, then the two w/2×h/2 chroma planes). */
async function copyI420(frame: VideoFrame, dest: Uint8Array, width: number, height: number): Promise<void> {
  const rect = frame.visibleRect;
  if (!rect || rect.width !== width || rect.height !== height)
    throw new Error(`a decoded frame of ${rect?.width}×${rect?.height}, not ${width}×${height}`);
  const luma = width * height;
  const cw = width / 2;
  const chroma = luma / 4;
  const format = frame.format;
  if (format === 'I420') {
    await frame.copyTo(dest, {
      layout: [
        { offset: 0, stride: width },
        { offset: luma, stride: cw },
        { offset: luma + chroma, stride: cw },
      ],
    });
  } else if (format === 'I420A') {
    // the alpha plane after the three the player reads, in a scratch buffer
    const scratch = new Uint8Array(luma * 2 + chroma * 2);
    await frame.copyTo(scratch, {
      layout: [
        { offset: 0, stride: width },
        { offset: luma, stride: cw },
        { offset: luma + chroma, stride: cw },
        { offset: luma + 2 * chroma, stride: width },
      ],
    });
    dest.set(scratch.subarray(0, luma + 2 * chroma));
  } else if (format === 'NV12') {
    // Y, then U and V interleaved: the chroma taken apart
    const scratch = new Uint8Array(luma + 2 * chroma);
    await frame.copyTo(scratch, {
      layout: [
        { offset: 0, stride: width },
        { offset: luma, stride: width },
      ],
    });
    dest.set(scratch.subarray(0, luma));
    for (let i = 0; i < chroma; i++) {
      dest[luma + i] = scratch[luma + 2 * i]!;
      dest[luma + chroma + i] = scratch[luma + 2 * i + 1]!;
    }
  } else throw new Error(`decoded frames in ${format ?? 'no'} format`); // RGB, 4:2:2, 4:4:4, 10-bit
}
