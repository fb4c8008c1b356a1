/**
 * What a clip holds, by Debian's `ffprobe`, in the terms every decode pass of the import needs:
 * the picture as it is displayed (a phone's rotation metadata turns it; a non-square pixel
 * stretches it), where the video's timeline begins (frame k of the import is the picture shown
 * at `startS + k / 25` in every pass), whether the picture is HDR (PQ or HLG: tone-mapped to SDR
 * when decoded) and where the audio begins against the video.
 */
import { spawn } from 'node:child_process';
import { CodedError } from '@mouthpiece/protocol';

export class FfmpegMissingError extends CodedError {
  static override code = 'ERR_FFMPEG_MISSING';
  constructor() {
    super(
      'ffmpeg is not installed on the server; install it (Debian/Ubuntu: apt-get install ffmpeg) and try again',
    );
    this.name = 'FfmpegMissingError';
  }
}

/** Thrown when ffprobe cannot read the file or it holds no video. */
export class ClipUnreadableError extends CodedError {
  static override code = 'ERR_CLIP_UNREADABLE';
  constructor(message: string) {
    super(message);
    this.name = 'ClipUnreadableError';
  }
}

/** The HDR transfer of a picture that is tone-mapped to SDR when decoded. */
export type HdrTransfer = 'pq' | 'hlg';

export interface ClipInfo {
  durationS: number;
  /** The picture as displayed: after the rotation metadata, in square pixels. */
  width: number;
  height: number;
  /** The stored picture's size, before rotation and pixel aspect. */
  codedWidth: number;
  codedHeight: number;
  /** The quarter turn (0, 90, 180, 270) the display matrix gives the stored picture; ffmpeg
   * turns decoded frames by it (autorotate), so frames come out `width`×`height`. */
  rotation: number;
  /** The video stream's first timestamp in seconds: frame k of every pass is at startS + k / fps. */
  startS: number;
  /** The stream's average frame rate, and whether it varies (its nominal rate differs). */
  frameRate: number;
  variableRate: boolean;
  /** Set when the picture is HDR; frames are then tone-mapped to SDR (BT.709). */
  hdr?: HdrTransfer;
  /** Set when the colours are BT.2020 (converted to BT.709 when decoded). */
  wideGamut: boolean;
  /** The decoded picture's pixel format (e.g. yuv420p, yuv420p10le). */
  pixelFormat: string;
  /** The container's format names (e.g. "mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm"). */
  format: string;
  videoCodec: string;
  hasAudio: boolean;
  /** Seconds the audio begins after the video (negative: before it). */
  audioOffsetS: number;
}

interface ProbeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  duration?: string;
  start_time?: string;
  r_frame_rate?: string;
  avg_frame_rate?: string;
  pix_fmt?: string;
  color_transfer?: string;
  color_primaries?: string;
  sample_aspect_ratio?: string;
  disposition?: { attached_pic?: number };
  tags?: { rotate?: string };
  side_data_list?: Array<{ rotation?: number }>;
}
interface ProbeOutput {
  format?: { duration?: string; format_name?: string; start_time?: string };
  streams?: ProbeStream[];
}

const ENTRIES = [
  'format=duration,format_name,start_time',
  'stream=codec_type,codec_name,width,height,duration,start_time,r_frame_rate,avg_frame_rate,pix_fmt,color_transfer,color_primaries,sample_aspect_ratio',
  'stream_tags=rotate',
  'stream_side_data=rotation',
  'stream_disposition=attached_pic',
].join(':');

/** What the clip holds, by ffprobe. */
export async function probeClip(file: string): Promise<ClipInfo> {
  const out = await runTool('ffprobe', ['-v', 'error', '-show_entries', ENTRIES, '-of', 'json', file]).catch(
    (err: Error) => {
      if (err instanceof FfmpegMissingError) throw err;
      throw new ClipUnreadableError(`the file cannot be read as a video (${firstLine(err.message)})`);
    },
  );
  let parsed: ProbeOutput;
  try {
    parsed = JSON.parse(out.toString('utf8')) as ProbeOutput;
  } catch {
    throw new ClipUnreadableError('the file cannot be read as a video');
  }
  return clipInfoOf(parsed);
}

/** ClipInfo from ffprobe's JSON (exported for tests). */
export function clipInfoOf(parsed: ProbeOutput): ClipInfo {
  const streams = parsed.streams ?? [];
  const video = streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  const format = parsed.format?.format_name ?? '';
  // still images (png, jpeg) and image sequences probe as a single-frame "video"
  if (!video || /image2|png_pipe|jpeg_pipe|gif|webp_pipe/.test(format) || !video.width || !video.height)
    throw new ClipUnreadableError('the file holds no video stream');
  const durationS = Number(parsed.format?.duration ?? video.duration ?? NaN);
  if (!Number.isFinite(durationS) || durationS <= 0)
    throw new ClipUnreadableError('the video has no readable duration (a damaged or truncated file)');
  const rotation = rotationOf(video);
  const sar = ratio(video.sample_aspect_ratio) || 1;
  // ffmpeg shows non-square pixels by widening (sar > 1) or heightening (sar < 1) the picture
  const w = sar > 1 ? even(video.width * sar) : video.width;
  const h = sar < 1 ? even(video.height / sar) : video.height;
  const turned = rotation === 90 || rotation === 270;
  const startS = finiteOr(Number(video.start_time), 0);
  const audio = streams.find((s) => s.codec_type === 'audio');
  const frameRate = ratio(video.avg_frame_rate) || ratio(video.r_frame_rate) || 25;
  const nominal = ratio(video.r_frame_rate) || frameRate;
  const transfer = video.color_transfer ?? '';
  const hdr: HdrTransfer | undefined =
    transfer === 'smpte2084' ? 'pq' : transfer === 'arib-std-b67' ? 'hlg' : undefined;
  return {
    durationS,
    width: turned ? h : w,
    height: turned ? w : h,
    codedWidth: video.width,
    codedHeight: video.height,
    rotation,
    startS,
    frameRate,
    variableRate: Math.abs(nominal - frameRate) > 0.01 * frameRate,
    ...(hdr ? { hdr } : {}),
    wideGamut: video.color_primaries === 'bt2020',
    pixelFormat: video.pix_fmt ?? '',
    format,
    videoCodec: video.codec_name ?? '',
    hasAudio: audio !== undefined,
    audioOffsetS: audio ? finiteOr(Number(audio.start_time), startS) - startS : 0,
  };
}

/** The quarter turn of the display matrix (else of the old `rotate` tag); other angles count as 0. */
function rotationOf(s: ProbeStream): number {
  const matrix = s.side_data_list?.find((d) => typeof d.rotation === 'number')?.rotation;
  const degrees = matrix ?? Number(s.tags?.rotate ?? 0);
  const quarter = Math.round(degrees / 90);
  if (!Number.isFinite(degrees) || Math.abs(degrees - quarter * 90) > 1) return 0;
  return (((quarter % 4) + 4) % 4) * 90;
}

const even = (v: number): number => 2 * Math.round(v / 2);
const finiteOr = (v: number, fallback: number): number => (Number.isFinite(v) ? v : fallback);

/** "30000/1001" → 29.97; "0/0" or nothing → 0. */
function ratio(s: string | undefined): number {
  const [a, b] = (s ?? '').split(/[/:]/).map(Number);
  return a && b && Number.isFinite(a / b) ? a / b : 0;
}

export function runTool(bin: string, args: string[]): Promise<Buffer> {
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

export function firstLine(s: string): string {
  const line = s.trim().split('\n')[0] ?? '';
  // file paths are the server's business, not the uploader's
  return line.replace(/^[^:]*\/[^:]*: /, '').slice(0, 160);
}

/** The video's key frames' timestamps in seconds, in order (read from the packets: no decoding). */
export async function keyFrameTimes(file: string): Promise<number[]> {
  const out = await runTool('ffprobe', [
    ...['-v', 'error', '-select_streams', 'v:0'],
    ...['-show_entries', 'packet=pts_time,flags', '-of', 'csv=p=0', file],
  ]);
  const times: number[] = [];
  for (const line of out.toString('utf8').split('\n')) {
    const [t, flags] = line.split(',');
    if (flags?.startsWith('K') && t !== undefined && Number.isFinite(Number(t))) times.push(Number(t));
  }
  return times.sort((a, b) => a - b);
}
