/**
 * Debian's `ffmpeg` and `ffprobe` for the video import: what a clip holds, its frames as raw RGB
 * (cropped, scaled and resampled to a fixed rate by ffmpeg itself) and its audio as 48 kHz mono
 * PCM. A system dependency like coturn: nothing downloads it; its absence is a clear error.
 */
import { spawn, spawnSync } from 'node:child_process';

export class FfmpegMissingError extends Error {
  constructor() {
    super(
      'ffmpeg is not installed on the server; install it (Debian/Ubuntu: apt-get install ffmpeg) and try again',
    );
    this.name = 'FfmpegMissingError';
  }
}

/** Whether `ffmpeg` and `ffprobe` run (checked each time: an operator may install it meanwhile). */
export function ffmpegAvailable(): boolean {
  for (const bin of ['ffmpeg', 'ffprobe']) {
    const r = spawnSync(bin, ['-version'], { stdio: 'ignore' });
    if (r.error || r.status !== 0) return false;
  }
  return true;
}

export interface ClipInfo {
  durationS: number;
  width: number;
  height: number;
  /** The container's format names (e.g. "mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm"). */
  format: string;
  videoCodec: string;
  hasAudio: boolean;
}

/** Thrown when ffprobe cannot read the file or it holds no video. */
export class ClipUnreadableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClipUnreadableError';
  }
}

interface ProbeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  duration?: string;
  disposition?: { attached_pic?: number };
}

/** What the clip holds, by ffprobe. */
export async function probeClip(file: string): Promise<ClipInfo> {
  const out = await run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration,format_name:stream=codec_type,codec_name,width,height,duration:stream_disposition=attached_pic',
    '-of',
    'json',
    file,
  ]).catch((err: Error) => {
    throw new ClipUnreadableError(`the file cannot be read as a video (${firstLine(err.message)})`);
  });
  let parsed: { format?: { duration?: string; format_name?: string }; streams?: ProbeStream[] };
  try {
    parsed = JSON.parse(out.toString('utf8')) as typeof parsed;
  } catch {
    throw new ClipUnreadableError('the file cannot be read as a video');
  }
  const streams = parsed.streams ?? [];
  const video = streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  const format = parsed.format?.format_name ?? '';
  // still images (png, jpeg) and image sequences probe as a single-frame "video"
  if (!video || /image2|png_pipe|jpeg_pipe|gif|webp_pipe/.test(format) || !video.width || !video.height)
    throw new ClipUnreadableError('the file holds no video stream');
  const durationS = Number(parsed.format?.duration ?? video.duration ?? NaN);
  if (!Number.isFinite(durationS) || durationS <= 0)
    throw new ClipUnreadableError('the video has no readable duration (a damaged or truncated file)');
  return {
    durationS,
    width: video.width,
    height: video.height,
    format,
    videoCodec: video.codec_name ?? '',
    hasAudio: streams.some((s) => s.codec_type === 'audio'),
  };
}

export interface FrameOptions {
  fps: number;
  /** A rectangle of the source (even numbers are not needed) scaled to `size`×`size`. */
  crop?: { x: number; y: number; side: number };
  size?: number;
  /** Scale the whole frame so its longer side is at most this (when there is no crop). */
  maxSide?: number;
  startS?: number;
  durationS?: number;
  maxFrames?: number;
}

function videoFilter(o: FrameOptions): string {
  const parts = [`fps=${o.fps}`];
  if (o.crop)
    parts.push(
      `crop=${Math.round(o.crop.side)}:${Math.round(o.crop.side)}:${Math.round(o.crop.x)}:${Math.round(o.crop.y)}`,
      `scale=${o.size}:${o.size}:flags=bicubic`,
    );
  else if (o.maxSide)
    parts.push(
      `scale='if(gt(iw,ih),min(iw,${o.maxSide}),-2)':'if(gt(iw,ih),-2,min(ih,${o.maxSide}))':flags=bicubic`,
    );
  return parts.join(',');
}

/**
 * Decodes frames as RGB (3 bytes a pixel) and hands each to `onFrame` in order; `onFrame` may be
 * async (ffmpeg is paused while it runs). Resolves with the frame count.
 */
export async function decodeFrames(
  file: string,
  o: FrameOptions,
  onFrame: (rgb: Uint8Array, index: number, width: number, height: number) => void | Promise<void>,
  size: { width: number; height: number },
): Promise<number> {
  const args = ['-v', 'error', '-nostdin'];
  if (o.startS !== undefined) args.push('-ss', o.startS.toFixed(3));
  args.push('-i', file);
  if (o.durationS !== undefined) args.push('-t', o.durationS.toFixed(3));
  args.push('-an', '-vf', videoFilter(o));
  if (o.maxFrames !== undefined) args.push('-frames:v', String(o.maxFrames));
  args.push('-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1');
  const child = spawn('ffmpeg', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const errors: Buffer[] = [];
  child.stderr.on('data', (d: Buffer) => errors.length < 20 && errors.push(d));
  const spawnError = new Promise<never>((_, reject) =>
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' ? new FfmpegMissingError() : err),
    ),
  );
  const frameBytes = size.width * size.height * 3;
  let pending: Buffer = Buffer.alloc(0);
  let count = 0;
  const read = (async () => {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length >= frameBytes) {
        const frame = new Uint8Array(frameBytes);
        frame.set(pending.subarray(0, frameBytes));
        pending = pending.subarray(frameBytes);
        await onFrame(frame, count++, size.width, size.height);
      }
    }
    const code = await new Promise<number | null>((resolve) =>
      child.exitCode !== null ? resolve(child.exitCode) : child.once('close', resolve),
    );
    if (code !== 0 && count === 0)
      throw new ClipUnreadableError(
        `the video cannot be decoded (${firstLine(Buffer.concat(errors).toString('utf8')) || `ffmpeg exit ${code}`})`,
      );
    return count;
  })();
  try {
    return await Promise.race([read, spawnError]);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

/** The size frames come out at for `o` from a `width`×`height` source. */
export function outputSize(
  o: FrameOptions,
  width: number,
  height: number,
): { width: number; height: number } {
  if (o.crop && o.size) return { width: o.size, height: o.size };
  if (o.maxSide && Math.max(width, height) > o.maxSide) {
    const even = (v: number): number => 2 * Math.round(v / 2);
    return width >= height
      ? { width: o.maxSide, height: even((height * o.maxSide) / width) }
      : { width: even((width * o.maxSide) / height), height: o.maxSide };
  }
  return { width, height };
}

/** The clip's audio as 48 kHz mono 16-bit PCM (empty when it has none). */
export async function decodeAudio(file: string, startS?: number, durationS?: number): Promise<Int16Array> {
  const args = ['-v', 'error', '-nostdin'];
  if (startS !== undefined) args.push('-ss', startS.toFixed(3));
  args.push('-i', file);
  if (durationS !== undefined) args.push('-t', durationS.toFixed(3));
  args.push('-vn', '-ac', '1', '-ar', '48000', '-f', 's16le', 'pipe:1');
  const out = await run('ffmpeg', args);
  const copy = new Uint8Array(out.length - (out.length % 2));
  copy.set(out.subarray(0, copy.length));
  return new Int16Array(copy.buffer);
}

function run(bin: string, args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.length < 20 && err.push(d));
    child.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'ENOENT' ? new FfmpegMissingError() : e),
    );
    child.once('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(Buffer.concat(err).toString('utf8').trim() || `${bin} exit ${code}`));
    });
  });
}

function firstLine(s: string): string {
  const line = s.trim().split('\n')[0] ?? '';
  // file paths are the server's business, not the uploader's
  return line.replace(/^[^:]*\/[^:]*: /, '').slice(0, 160);
}
