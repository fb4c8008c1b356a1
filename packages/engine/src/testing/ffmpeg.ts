/**
 * Debian's ffmpeg for tests: an encoder fed raw RGBA frames through a pipe (the test clips of
 * talking-clip.ts), ffprobe's view of a file, and single frames decoded back to RGBA. A missing
 * ffmpeg is an error saying what to install, never a skipped test.
 */
import { spawn, spawnSync } from 'node:child_process';

export type ClipFormat = 'mp4' | 'webm' | 'mov';

const INSTALL = 'install it with "apt-get install ffmpeg"';

let encoders: string | undefined;

/** ffmpeg's encoder list (cached); throws saying what to install when ffmpeg is missing. */
function encoderList(): string {
  if (encoders !== undefined) return encoders;
  const r = spawnSync('ffmpeg', ['-hide_banner', '-encoders'], { encoding: 'utf8' });
  if (r.error || r.status !== 0)
    throw new Error(
      `ffmpeg is missing or does not run (${r.error?.message ?? `exit ${r.status}`}): ${INSTALL}`,
    );
  encoders = r.stdout;
  return encoders;
}

function hasEncoder(name: string): boolean {
  return new RegExp(`^\\s\\S{6}\\s${name}\\s`, 'm').test(encoderList());
}

/** The codec arguments for a container: H.264 (MPEG-4 part 2 without libx264) + AAC, or VP8 + Opus. */
export function codecArgs(format: ClipFormat, audio: boolean): string[] {
  const need = (name: string): void => {
    if (!hasEncoder(name)) throw new Error(`ffmpeg has no ${name} encoder: ${INSTALL} (Debian's build)`);
  };
  switch (format) {
    case 'webm':
      need('libvpx');
      if (audio) need('libopus');
      return [
        // the fastest VP8 settings (half the CPU of -cpu-used 8 at -crf 10, hardly softer), in
        // one thread: libvpx's row threads spin while they wait for frames (4× the CPU, slower)
        ...['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '16', '-threads', '1'],
        ...['-crf', '30', '-b:v', '1M'],
        ...['-pix_fmt', 'yuv420p'],
        ...(audio ? ['-c:a', 'libopus', '-b:a', '64k'] : []),
      ];
    case 'mp4':
    case 'mov': {
      const video = hasEncoder('libx264')
        ? ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20']
        : (need('mpeg4'), ['-c:v', 'mpeg4', '-q:v', '3']);
      return [
        ...video,
        ...['-pix_fmt', 'yuv420p'],
        ...(audio ? ['-c:a', 'aac', '-b:a', '128k'] : []),
        ...(format === 'mp4' ? ['-movflags', '+faststart'] : []),
      ];
    }
  }
}

/** An ffmpeg process encoding RGBA frames written to it, with an optional WAV as the audio. */
export interface FrameEncoder {
  /** Writes one frame; resolves once ffmpeg has taken it (the buffer may then be reused). */
  write(rgba: Uint8Array): Promise<void>;
  /** Ends the input and waits for ffmpeg to finish the file. */
  finish(): Promise<void>;
  /** Stops ffmpeg (after a failure). */
  kill(): void;
}

export function startEncoder(opts: {
  out: string;
  width: number;
  height: number;
  fps: number;
  format: ClipFormat;
  /** A WAV file for the audio track, or none. */
  wav: string | undefined;
}): FrameEncoder {
  const args = [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'rawvideo', '-pix_fmt', 'rgba', '-s', `${opts.width}x${opts.height}`, '-r', String(opts.fps)],
    ...['-i', 'pipe:0'],
    ...(opts.wav ? ['-i', opts.wav] : []),
    ...codecArgs(opts.format, opts.wav !== undefined),
    ...(opts.wav ? ['-shortest'] : []),
    ...['-f', opts.format === 'mp4' ? 'mp4' : opts.format === 'mov' ? 'mov' : 'webm', opts.out],
  ];
  const child = spawn('ffmpeg', args, { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise<void>((resolve, reject) => {
    child.once('error', (err) => reject(new Error(`ffmpeg did not start (${err.message}): ${INSTALL}`)));
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`ffmpeg failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`));
    });
  });
  exited.catch(() => undefined); // observed by write() and finish()
  // a write to a process that died answers EPIPE; the exit's error says why
  child.stdin.on('error', () => undefined);
  return {
    write(rgba) {
      return new Promise<void>((resolve, reject) => {
        child.stdin.write(rgba, (err) => {
          if (!err) resolve();
          else exited.then(() => reject(err), reject); // ffmpeg's own failure says more than EPIPE
        });
      });
    },
    finish() {
      child.stdin.end();
      return exited;
    },
    kill() {
      child.kill('SIGKILL');
    },
  };
}

/** What ffprobe says about a media file. */
export interface MediaProbe {
  durationS: number;
  video: { codec: string; width: number; height: number; fps: number; frames: number } | undefined;
  audio: { codec: string; sampleRateHz: number; channels: number; durationS: number } | undefined;
}

interface ProbeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  nb_frames?: string;
  nb_read_packets?: string;
  sample_rate?: string;
  channels?: number;
  duration?: string;
}

function rate(r: string | undefined): number {
  const [a, b] = (r ?? '0/1').split('/').map(Number);
  return b ? a! / b : 0;
}

/** ffprobe's streams of a file (frames counted from packets: webm and mov carry no count). */
export function probeMedia(file: string): MediaProbe {
  const r = spawnSync(
    'ffprobe',
    ['-v', 'error', '-count_packets', '-show_format', '-show_streams', '-of', 'json', file],
    { encoding: 'utf8' },
  );
  if (r.error) throw new Error(`ffprobe is missing (${r.error.message}): ${INSTALL}`);
  if (r.status !== 0) throw new Error(`ffprobe failed on ${file}: ${r.stderr.trim()}`);
  const j = JSON.parse(r.stdout) as { format?: { duration?: string }; streams?: ProbeStream[] };
  const v = j.streams?.find((s) => s.codec_type === 'video');
  const a = j.streams?.find((s) => s.codec_type === 'audio');
  return {
    durationS: Number(j.format?.duration ?? 0),
    video: v && {
      codec: v.codec_name ?? '',
      width: v.width ?? 0,
      height: v.height ?? 0,
      fps: rate(v.avg_frame_rate !== '0/0' ? v.avg_frame_rate : v.r_frame_rate),
      frames: Number(v.nb_read_packets ?? v.nb_frames ?? 0),
    },
    audio: a && {
      codec: a.codec_name ?? '',
      sampleRateHz: Number(a.sample_rate ?? 0),
      channels: a.channels ?? 0,
      durationS: Number(a.duration ?? j.format?.duration ?? 0),
    },
  };
}

/** Decodes frame `index` (counted from 0) of a video as RGBA of the given size. */
export function decodeFrame(
  file: string,
  index: number,
  size: { width: number; height: number },
): Uint8Array {
  const r = spawnSync(
    'ffmpeg',
    [
      ...['-hide_banner', '-loglevel', 'error', '-i', file],
      ...['-vf', `select=eq(n\\,${index})`, '-fps_mode', 'passthrough', '-frames:v', '1'],
      ...['-f', 'rawvideo', '-pix_fmt', 'rgba', 'pipe:1'],
    ],
    { maxBuffer: size.width * size.height * 4 + 1024 },
  );
  if (r.error) throw new Error(`ffmpeg is missing (${r.error.message}): ${INSTALL}`);
  if (r.status !== 0)
    throw new Error(`ffmpeg could not decode frame ${index} of ${file}: ${r.stderr.toString()}`);
  const px = new Uint8Array(r.stdout.buffer, r.stdout.byteOffset, r.stdout.byteLength);
  if (px.length !== size.width * size.height * 4)
    throw new Error(`frame ${index} of ${file}: ${px.length} bytes, not ${size.width}×${size.height} RGBA`);
  return px;
}
