/**
 * Before tracking: a few frames spread over the clip go through the sure (SSD) detector, which
 * decides whether there is one face, big enough, and where the square the import works in lies:
 * around the face's median position, the face about 40 % of its side (as a photo avatar's crop).
 */
import { keyFrameTimes } from './clip-probe.js';
import { decodeFrames, outputSize, seeksExactly, type ClipInfo, type FrameOptions } from './ffmpeg.js';
import { detectFacesSsd, type FoundFace, type Landmarks } from './face-tracker.js';
import { VIDEO_LIMITS, VideoImportError } from './import-errors.js';

/** Frames looked at before tracking. */
const SAMPLES = 4;
/** Sample frames are scaled so their longer side is at most this. */
const SAMPLE_SIDE = 640;

export interface FacePlan {
  /** The square of the source frame the import works in, before it is scaled to framePx. */
  crop: { x: number; y: number; side: number };
  /** Landmarks of the sampled face nearest rest, in the square's framePx pixels. */
  reference: Landmarks;
  /** The face's jaw width in the source's pixels (median over the samples). */
  facePx: number;
}

const median = (v: number[]): number => {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};

/**
 * Where the samples are taken: at SAMPLES instants spread over the clip, each moved to the nearest
 * key frame not taken yet when one is within a sixth of the clip (one frame decoded, not the
 * seconds of a group of pictures before it), else decoded exactly there.
 */
export function sampleFrames(info: Pick<ClipInfo, 'startS' | 'durationS'>, keys: number[]): FrameOptions[] {
  const taken = new Set<number>();
  return Array.from({ length: SAMPLES }, (_, s): FrameOptions => {
    const at = info.startS + ((s + 0.5) / SAMPLES) * info.durationS;
    const near = keys
      .filter((t) => !taken.has(t) && Math.abs(t - at) <= info.durationS / 6)
      .sort((a, b) => Math.abs(a - at) - Math.abs(b - at))[0];
    if (near !== undefined) {
      taken.add(near);
      return { fps: VIDEO_LIMITS.fps, keyFrameNearS: near + 0.0005 };
    }
    return { fps: VIDEO_LIMITS.fps, fromFrame: Math.round((at - info.startS) * VIDEO_LIMITS.fps) };
  });
}

export async function planFace(file: string, info: ClipInfo): Promise<FacePlan> {
  const size = outputSize({ fps: 1, maxSide: SAMPLE_SIDE }, info.width, info.height);
  const k = info.width / size.width;
  const found: FoundFace[][] = [];
  const keys = seeksExactly(info) ? await keyFrameTimes(file).catch(() => []) : [];
  for (const sample of sampleFrames(info, keys)) {
    let faces: FoundFace[] = [];
    await decodeFrames(
      file,
      { ...sample, maxSide: SAMPLE_SIDE, maxFrames: 1, clip: info },
      async (rgb, _i, width, height) => {
        faces = await detectFacesSsd({ rgb, width, height });
      },
      size,
    );
    found.push(
      faces.map((f) => ({ ...f, landmarks: f.landmarks.map(([x, y]): [number, number] => [x * k, y * k]) })),
    );
  }
  const withFace = found.filter((f) => f.length > 0);
  if (withFace.length === 0)
    throw new VideoImportError(
      'no_face',
      'No face was found in the video; record one person facing the camera, the face well lit and in view',
    );
  const several = found.filter((f) => f.length > 1).length;
  if (several >= SAMPLES / 2)
    throw new VideoImportError(
      'several_faces',
      `The video shows more than one face (${Math.max(...found.map((f) => f.length))} in some frames); record one person alone in the picture`,
    );
  const faces = withFace.map((f) => f[0]!);
  const jaw = (lm: Landmarks): number => Math.hypot(lm[16]![0] - lm[0]![0], lm[16]![1] - lm[0]![1]);
  const facePx = median(faces.map((f) => jaw(f.landmarks)));
  if (facePx < VIDEO_LIMITS.minFacePx)
    throw new VideoImportError(
      'face_too_small',
      `The face is ${Math.round(facePx)} px across; at least ${VIDEO_LIMITS.minFacePx} px are needed (film closer, or at a higher resolution)`,
    );
  const cx = median(faces.map((f) => (f.landmarks[0]![0] + f.landmarks[16]![0]) / 2));
  const cy = median(faces.map((f) => f.landmarks[29]![1]));
  const side = Math.min(info.width, info.height, Math.round(facePx * 2.5));
  const x = Math.round(Math.min(Math.max(0, cx - side / 2), info.width - side));
  const y = Math.round(Math.min(Math.max(0, cy - side * 0.45), info.height - side));
  const crop = { x, y, side };
  // the reference face: the sample whose lips are closest together
  const gap = (lm: Landmarks): number => Math.abs(lm[66]![1] - lm[62]![1]);
  const rest = faces.reduce((best, f) =>
    gap(f.landmarks) / jaw(f.landmarks) < gap(best.landmarks) / jaw(best.landmarks) ? f : best,
  );
  const s = VIDEO_LIMITS.framePx / side;
  return {
    crop,
    reference: rest.landmarks.map(([px, py]): [number, number] => [(px - x) * s, (py - y) * s]),
    facePx,
  };
}
