/**
 * Debian's `ffmpeg` for the video import: the clip's frames as raw RGB (upright, cropped, scaled,
 * tone-mapped to SDR and resampled to the pack's rate by ffmpeg itself, frame k the same instant
 * in every pass) and its audio as 48 kHz mono PCM on the video's clock. A system dependency like
 * coturn: nothing downloads it; its absence is a clear error. What a clip holds: clip-probe.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { ClipUnreadableError, FfmpegMissingError, firstLine, runTool, type ClipInfo } from './clip-probe.js';
import { fitted, videoFilter } from './video-filter.js';

export {
  ClipUnreadableError,
  FfmpegMissingError,
  probeClip,
  type ClipInfo,
  type HdrTransfer,
} from './clip-probe.js';

/** Whether `ffmpeg` and `ffprobe` run (checked each time: an operator may install it meanwhile). */
export function ffmpegAvailable(): boolean {
  for (const bin of ['ffmpeg', 'ffprobe']) {
    const r = spawnSync(bin, ['-version'], { stdio: 'ignore' });
    if (r.error || r.status !== 0) return false;
  }
  return true;
}

/** What a decode pass needs of the clip: its timeline's start, its size and its colours. */
export type FrameSource = Pick<ClipInfo, 'startS' | 'wideGamut' | 'width' | 'height'> &
  Partial<Pick<ClipInfo, 'hdr' | 'codedWidth' | 'codedHeight' | 'rotation' | 'format'>>;

/** Containers whose index lets ffmpeg seek to a key frame at or before a time (MPEG-TS, AVI and
 * others are read from the start instead: their seeks may land on a later frame). */
export const seeksExactly = (c: FrameSource): boolean => /\b(mov|mp4|matroska|webm)\b/.test(c.format ?? '');

export interface FrameOptions {
  /** Frames come out on this rate's timeline (ffmpeg's fps filter: frame k shows the picture on
   * screen at the stream's start + k / fps, whatever the clip's own rate, also when it varies). */
  fps: number;
  /** A square of the displayed picture (even numbers are not needed) scaled to `size`×`size`. */
  crop?: { x: number; y: number; side: number };
  size?: number;
  /** Scale the whole frame so its longer side is at most this (when there is no crop). */
  maxSide?: number;
  /** The first frame of that timeline handed over (as index 0), exactly the frame a pass from the
   * start gives at this index: ffmpeg seeks to a key frame a second or more before it, and the
   * frames before it are dropped after the fps filter. Needs `clip`. */
  fromFrame?: number;
  maxFrames?: number;
  /** Instead of a timeline: the frames from the key frame at or before this second (the cheapest
   * frame to decode there; the face planning's samples need no exact instant). */
  keyFrameNearS?: number;
  /** The clip as probed: the timeline starts at its first timestamp; HDR is tone-mapped to SDR. */
  clip?: FrameSource;
}

/** Seconds before the wanted frame the decoder starts (at a key frame at or before that point). */
const SEEK_MARGIN_S = 1;

/** ffmpeg's arguments for a decode pass (exported for tests). */
export function decodeArgs(file: string, o: FrameOptions, zscale = hasZscale()): string[] {
  const from = o.fromFrame ?? 0;
  if (from > 0 && !o.clip) throw new Error('decodeFrames: fromFrame needs the probed clip');
  // -copyts: frames keep the stream's timestamps, so the fps filter's timeline (its start_time)
  // is the same whether ffmpeg started at the beginning or at a key frame (-noaccurate_seek: every
  // frame from that key frame on reaches the filter)
  const args = ['-v', 'error', '-nostdin', '-copyts'];
  const seekS = o.clip ? o.clip.startS + from / o.fps - SEEK_MARGIN_S : 0;
  // -seek_timestamp: -ss is a stream timestamp, as startS and key frame times are
  const seek = (s: number): string[] => ['-noaccurate_seek', '-seek_timestamp', '1', '-ss', s.toFixed(4)];
  if (o.keyFrameNearS !== undefined) args.push(...seek(o.keyFrameNearS));
  else if (from > 0 && seekS > 0 && o.clip && seeksExactly(o.clip)) args.push(...seek(seekS));
  // ffmpeg turns the picture upright itself (autorotate, on by default: never -noautorotate)
  args.push('-i', file, '-an', '-sn', '-dn', '-vf', videoFilter(o, zscale));
  if (o.maxFrames !== undefined) args.push('-frames:v', String(o.maxFrames));
  args.push('-fps_mode', 'passthrough', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1');
  return args;
}

let zscaleKnown: boolean | undefined;
/** Whether this ffmpeg has the zscale filter (libzimg; Debian's has it), for HDR and BT.2020. */
export function hasZscale(): boolean {
  if (zscaleKnown === undefined) {
    const r = spawnSync('ffmpeg', ['-hide_banner', '-filters'], { encoding: 'utf8' });
    zscaleKnown = r.status === 0 && /\szscale\s/.test(r.stdout);
  }
  return zscaleKnown;
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
  const args = decodeArgs(file, o);
  const child = spawn('ffmpeg', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const errors: Buffer[] = [];
  child.stderr.on('data', (d: Buffer) => errors.length < 20 && errors.push(d));
  const spawnError = new Promise<never>((_, reject) =>
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' ? new FfmpegMissingError() : err),
    ),
  );
  const frameBytes = size.width * size.height * 3;
  let count = 0;
  // each pipe chunk is copied once, straight into the frame it belongs to
  let frame = new Uint8Array(frameBytes);
  let filled = 0;
  const read = (async () => {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      for (let at = 0; at < chunk.length;) {
        const n = Math.min(frameBytes - filled, chunk.length - at);
        frame.set(chunk.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled < frameBytes) continue;
        const whole = frame;
        frame = new Uint8Array(frameBytes);
        filled = 0;
        await onFrame(whole, count++, size.width, size.height);
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

/** The size frames come out at for `o` from a `width`×`height` (displayed) source. */
export function outputSize(
  o: FrameOptions,
  width: number,
  height: number,
): { width: number; height: number } {
  if (o.crop && o.size) return { width: o.size, height: o.size };
  return o.maxSide ? fitted(width, height, o.maxSide) : { width, height };
}

/**
 * The clip's audio as 48 kHz mono 16-bit PCM (empty when it has none), any rate and channels
 * mixed down. With `align` (the probe's audioOffsetS), sample 0 is the video's frame 0: audio
 * that begins later is preceded by silence, audio that begins earlier is cut.
 */
export async function decodeAudio(file: string, align?: { audioOffsetS: number }): Promise<Int16Array> {
  const args = ['-v', 'error', '-nostdin', '-i', file];
  args.push('-vn', '-sn', '-dn', '-ac', '1', '-ar', '48000', '-f', 's16le', 'pipe:1');
  const out = await runTool('ffmpeg', args);
  const pcm = new Int16Array(out.length >> 1);
  for (let i = 0; i < pcm.length; i++) pcm[i] = out.readInt16LE(i * 2);
  const shift = Math.round((align?.audioOffsetS ?? 0) * 48_000);
  if (shift === 0) return pcm;
  if (shift < 0) return pcm.slice(Math.min(pcm.length, -shift));
  const padded = new Int16Array(pcm.length + shift);
  padded.set(pcm, shift);
  return padded;
}
