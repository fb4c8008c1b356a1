/**
 * Real footage for the video import's tests and benchmarks: the shared clip of a real man talking
 * (`../shared/fixtures/real-clips/latentsync-demo2.mp4` from the repository's root, its README
 * beside it: a test input only, never committed, never a picture in the repository) and clips
 * made from it by Debian's ffmpeg the way phones and editors write them: cut short, rotated by
 * metadata, at other frame rates, with a varying rate, in 10-bit HDR, padded to landscape, odd
 * sizes. Each is made once and cached in `os.tmpdir()/mouthpiece-clips/real-<hash>.<ext>`, keyed
 * by its recipe and the source's size and time, so test files and benchmarks share them.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** In a step of realClipVariant: the previous step's file. */
export const INPUT = '{input}';

/** The fixture's path relative to the repository's root. */
export const REAL_CLIP_PATH = '../shared/fixtures/real-clips/latentsync-demo2.mp4';

/** The real clip's absolute path; throws naming where it is looked for when it is missing. */
export function realClipPath(): string {
  // this file is packages/engine/{src,dist}/testing/real-clip.{ts,js}
  const root = fileURLToPath(new URL('../../../../', import.meta.url));
  const file = join(root, REAL_CLIP_PATH);
  if (!existsSync(file))
    throw new Error(
      `the real test clip is missing: put latentsync-demo2.mp4 (with its README) at ${REAL_CLIP_PATH} from the repository's root (${file})`,
    );
  return file;
}

/**
 * A clip made from the real one: each step is ffmpeg's arguments before its output file, with
 * INPUT standing for the previous step's file (the fixture for the first); a step without it
 * begins with `-i` and that file. `ext` is the output's
 * container. Answers the cached file's path, making it first when needed.
 */
export function realClipVariant(steps: string[][], ext: 'mp4' | 'mov' | 'webm' | 'mkv' = 'mp4'): string {
  const source = realClipPath();
  const { size, mtimeMs } = statSync(source);
  const key = createHash('sha256')
    .update(JSON.stringify({ steps, ext, size, mtimeMs }))
    .digest('hex')
    .slice(0, 16);
  const dir = join(tmpdir(), 'mouthpiece-clips');
  const file = join(dir, `real-${key}.${ext}`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  let input = source;
  const temps: string[] = [];
  try {
    for (const [k, step] of steps.entries()) {
      const out = join(dir, `.real-${key}-${process.pid}-${k}.${ext}`);
      temps.push(out);
      const args = step.includes(INPUT) ? step.map((a) => (a === INPUT ? input : a)) : ['-i', input, ...step];
      const r = spawnSync('ffmpeg', ['-hide_banner', '-v', 'error', '-nostdin', '-y', ...args, out], {
        encoding: 'utf8',
      });
      if (r.error)
        throw new Error(`ffmpeg did not run (${r.error.message}): install it with "apt-get install ffmpeg"`);
      if (r.status !== 0) throw new Error(`ffmpeg ${step.join(' ')} failed: ${r.stderr.trim()}`);
      input = out;
    }
    renameSync(input, file);
  } finally {
    for (const t of temps) rmSync(t, { force: true });
  }
  return file;
}

/** Short portrait cut: 7 s of the face's part of the frame, 360×640 (the jaw ≈ 178 px), H.264 + AAC. */
const CUT = ['-ss', '2', '-t', '7', '-vf', 'crop=540:960:230:0,scale=360:640'];
const X264 = ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-g', '50'];

/** SDR BT.709 → 10-bit BT.2020 HDR with SDR white at HDR's reference white (203 cd/m², BT.2408). */
const toHdr = (transfer: 'smpte2084' | 'arib-std-b67'): string[] => [
  `zscale=t=linear,format=gbrpf32le,zscale=p=bt2020:t=${transfer}:m=bt2020nc:r=tv:npl=203,format=yuv420p10le`,
  'libx265',
  `log-level=error:colorprim=bt2020:transfer=${transfer}:colormatrix=bt2020nc`,
];

const PORTRAIT = [...CUT, ...X264, '-c:a', 'aac', '-b:a', '96k'];
/** A skin-coloured patch over the mouth and chin (from under the nose's top) for 5 of the 7 s. */
const COVER = "drawbox=x=110:y=325:w=140:h=100:color=0xC08870:t=fill:enable='between(t,1.5,6.5)'";

export type RealClipName = 'portrait' | 'covered' | 'phone' | 'landscape' | 'pq' | 'minute';

/**
 * Named clips from the real footage, as phones and editors write them:
 * - `portrait`: the 7 s cut as it is (25 fps, H.264, AAC 44.1 kHz stereo);
 * - `covered`: the cut with a hand-coloured patch over the mouth and chin in 71 % of the frames;
 * - `phone`: stored sideways (640×360) with a display matrix that turns it upright, 30 fps with
 *   every 7th frame dropped (a variable rate, ≈ 25.7 fps on average), 10-bit HEVC in HLG;
 * - `landscape`: padded to an odd 1139×641, 60 fps, VP9 + 6-channel Opus in WebM;
 * - `pq`: 3 s of the cut in 10-bit HEVC HDR10 (PQ), for decoding only;
 * - `minute`: 60 s of the full 1080×1920 HEVC clip looped (streams copied), for benchmarks.
 */
export function realClip(name: RealClipName): string {
  switch (name) {
    case 'portrait':
      return realClipVariant([PORTRAIT]);
    case 'covered':
      return realClipVariant([PORTRAIT, [...['-vf', COVER, '-c:a', 'copy'], ...X264]]);
    case 'phone': {
      const [hdr, codec, params] = toHdr('arib-std-b67');
      const vf = `crop=540:960:230:0,scale=360:640,fps=30,select=not(eq(mod(n\\,7)\\,3)),transpose=2,${hdr!}`;
      return realClipVariant([
        [
          ...[...CUT.slice(0, 4), '-vf', vf, '-fps_mode', 'vfr'],
          ...['-c:v', codec!, '-preset', 'ultrafast', '-x265-params', params!],
          ...['-c:a', 'aac', '-b:a', '96k', '-ar', '44100'],
        ],
        // the display matrix turns the stored picture upright (ffprobe: rotation -90)
        ['-c', 'copy', '-metadata:s:v:0', 'rotate=270'],
      ]);
    }
    case 'landscape':
      return realClipVariant(
        [
          [
            ...CUT.slice(0, 4),
            ...[
              '-vf',
              'crop=540:960:230:0,scale=360:640,fps=60,pad=1140:642:389:1,crop=1139:641:0:0:exact=1',
            ],
            ...[
              '-c:v',
              'libvpx-vp9',
              '-deadline',
              'realtime',
              '-cpu-used',
              '8',
              '-b:v',
              '1500k',
              '-g',
              '120',
            ],
            ...['-ac', '6', '-ar', '48000', '-c:a', 'libopus', '-mapping_family', '1'],
          ],
        ],
        'webm',
      );
    case 'pq': {
      const [hdr, codec, params] = toHdr('smpte2084');
      const vf = `crop=540:960:230:0,scale=360:640,${hdr!}`;
      return realClipVariant([
        [
          '-ss',
          '2',
          '-t',
          '3',
          '-vf',
          vf,
          '-c:v',
          codec!,
          '-preset',
          'ultrafast',
          '-x265-params',
          params!,
          '-an',
        ],
      ]);
    }
    case 'minute':
      return realClipVariant([['-stream_loop', '2', '-i', INPUT, '-t', '60', '-c', 'copy']]);
  }
}
