/**
 * Makes a video avatar pack from a clip of a person talking (docs/avatars.md "Video avatars"):
 * probe and check the clip (ffprobe), find the face on a few frames, track it through every frame
 * (video/track-clip.ts), measure the mouth of each frame in the renderer's space (with the clip's
 * audio through the lip-sync model), choose the base frames (video/base-pool.ts), decode them again
 * exactly and bake a closed mouth into the speech-time ones (video/base-frames.ts), link them by
 * their video-texture graph (video/jump-graph.ts), and write the pack (video/pack.ts), its frames also as VP9 for browsers (video/browser-video.ts). The pack appears complete or not at all: it is written
 * beside the target and renamed into place. Runs in its own process (video/import-main.ts).
 */
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { i420ToRgba } from '@mouthpiece/draw';
import { validateManifest, type VideoAvatarManifest } from '../avatar/manifest.js';
import {
  ClipUnreadableError,
  FfmpegMissingError,
  decodeAudio,
  ffmpegAvailable,
  probeClip,
  type ClipInfo,
} from './ffmpeg.js';
import { planFace } from './find-face.js';
import { chooseBasePool, POOL_LIMITS, type BasePool } from './base-pool.js';
import { bakeClosedMouths, decodeBaseFrames, restCrop, thumbOfI420 } from './base-frames.js';
import { VIDEO_LIMITS, VideoImportError } from './import-errors.js';
import { lowerFaceBox, seamMask } from './mask.js';
import { encodeVideoForBrowsers } from './browser-video.js';
import {
  canonicalLandmarks,
  clearUnderNose,
  clearness,
  headPose,
  medianSamples,
  meshFrame,
  ringSamples,
  sharpness,
} from './face-data.js';
import { buildJumpGraph, type JumpGraph } from './jump-graph.js';
import { calibrate, frameSounds, measureMouth, type RawMouth } from './mouth-measure.js';
import { VIDEO_FILES, i420Bytes, i420View, type VideoIndex } from './pack.js';
import { ringMeans } from './pixels.js';
import { previewPngOf } from './preview.js';
import { fileLooksLikeVideo } from './sniff.js';
import { trackClip } from './track-clip.js';
import { refuseUnusable } from './track-refusal.js';
import { markCoveredMouths } from './mouth-cover.js';

export interface VideoImportRequest {
  id: string;
  name: string;
  description?: string | undefined;
  /** The clip's path (uploads are streamed to a file first). */
  file: string;
  /**
   * Overrides VIDEO_LIMITS.minSeconds, for benchmarks that import part of a short real clip
   * (bench/video-real/run.mjs); no HTTP or CLI path sets it.
   */
  minSeconds?: number | undefined;
}

/** Import stages, in order, for progress lines. */
export type ImportStage = 'probe' | 'face' | 'track' | 'audio' | 'loop' | 'write';
export type ImportProgress = (stage: ImportStage, fraction: number) => void;

const seconds = (s: number): string => `${Math.round(s * 10) / 10} s`;

async function checkClip(file: string, minSeconds: number): Promise<ClipInfo> {
  if (!ffmpegAvailable()) throw new VideoImportError('ffmpeg_missing', new FfmpegMissingError().message);
  const { size } = await stat(file);
  if (size > VIDEO_LIMITS.maxBytes)
    throw new VideoImportError('too_large', `The video is over ${VIDEO_LIMITS.maxBytes / 1024 / 1024} MiB`);
  const video = await fileLooksLikeVideo(file);
  const info = await probeClip(file).catch((err: unknown) => {
    if (err instanceof ClipUnreadableError)
      throw new VideoImportError(
        !video || /no video stream/.test(err.message) ? 'not_a_video' : 'broken_file',
        `The upload is not a usable video: ${err.message}; send an MP4, WebM or MOV clip`,
      );
    throw err;
  });
  if (info.durationS < minSeconds)
    throw new VideoImportError(
      'too_short',
      `The video is ${seconds(info.durationS)} long; at least ${minSeconds} s are needed (record a longer varied passage)`,
    );
  if (info.durationS > VIDEO_LIMITS.maxSeconds)
    throw new VideoImportError(
      'too_long',
      `The video is ${seconds(info.durationS)} long; at most ${VIDEO_LIMITS.maxSeconds} s (3 min) are taken (trim it)`,
    );
  return info;
}

function draft(req: VideoImportRequest): VideoAvatarManifest {
  const m = {
    id: req.id,
    name: req.name,
    version: 1 as const,
    ...(req.description ? { description: req.description } : {}),
    render: 'video' as const,
    source: 'upload' as const,
  };
  try {
    validateManifest(m, 'avatar');
  } catch (err) {
    throw new VideoImportError('invalid_manifest', (err as Error).message.replace(/^avatar: /, ''));
  }
  return m;
}

/** Imports the clip and writes its pack as `<packsDir>/<id>`. */
export async function importVideoAvatar(
  req: VideoImportRequest,
  packsDir: string,
  onProgress: ImportProgress = () => undefined,
): Promise<{ manifest: VideoAvatarManifest; stats: VideoIndex['stats'] }> {
  const manifest = draft(req);
  const target = join(packsDir, req.id);
  if (existsSync(target)) throw new VideoImportError('exists', `An avatar with id ${req.id} already exists`);
  const started = Date.now();
  onProgress('probe', 0);
  const info = await checkClip(req.file, req.minSeconds ?? VIDEO_LIMITS.minSeconds);
  onProgress('face', 0);
  const plan = await planFace(req.file, info).catch(rethrowDecode);
  const fps = VIDEO_LIMITS.fps;
  const box = lowerFaceBox(plan.reference);
  const mask = seamMask(box.width, box.height);
  const expected = Math.ceil(info.durationS * fps);
  const tracked = await trackClip(req.file, info, plan, box, expected, (f) => onProgress('track', f)).catch(
    rethrowDecode,
  );
  const { frames } = tracked;
  if (frames.length < expected * 0.9)
    throw new VideoImportError(
      'broken_file',
      `The video cannot be decoded past ${seconds(frames.length / fps)} of its stated ${seconds(info.durationS)} (a damaged or truncated file); send the whole clip`,
    );
  const coveredMouths = markCoveredMouths(frames, box, plan.reference);
  const validCount = frames.filter((f) => f.valid).length;
  if (tracked.checks > 0 && tracked.multiFaceChecks / tracked.checks > 0.3)
    throw new VideoImportError(
      'several_faces',
      'The video shows more than one face; record one person alone in the picture',
    );
  refuseUnusable(frames);

  onProgress('audio', 0);
  const pcm = info.hasAudio ? await decodeAudio(req.file, info) : new Int16Array(0);
  const ring = new Map<number, [number, number, number]>();
  const raw: Array<RawMouth | undefined> = frames.map((f, i) => {
    if (!f.valid) return undefined;
    if (f.crop) ring.set(i, ringMeans(i420View(f.crop, 0, box.width, box.height), mask));
    return measureMouth(f.landmarks, f.toFrame, f.crop, box, ring.get(i)?.[0] ?? 0);
  });
  const cal = calibrate(raw, pcm, fps);
  const loudness = frameLoudness(pcm, frames.length, fps);

  const library = frames.map((f, i) => ({ f, i })).filter((x) => x.f.valid && x.f.crop);
  const canon = (f: (typeof frames)[number]): number[] => canonicalLandmarks(f.landmarks, f.toFrame);
  const mesh = meshFrame(plan.reference.flatMap(([x, y]) => [x, y]));
  const libraryLandmarks = library.map(({ f }) => canon(f));
  const librarySamples = library.map(({ f }, k) =>
    ringSamples(i420View(f.crop!, 0, box.width, box.height), box, libraryLandmarks[k]!, mesh),
  );
  const usualFace = medianSamples(librarySamples);
  const libraryClear = librarySamples.map((x) => clearness(x, usualFace));
  // a frame whose upper lip reaches the line under the nose cannot take a composited mouth
  const uncoverable = new Set(library.filter((_, k) => !clearUnderNose(libraryClear[k]!)).map(({ i }) => i));
  // (unless that is most of the clip: then its frames are what there is)
  if (uncoverable.size > validCount / 2) uncoverable.clear();

  onProgress('loop', 0);
  const pool = chooseBasePool(
    frames.map((f, i) => ({
      valid: f.valid && !uncoverable.has(i),
      open: cal.descriptors[i]!.open,
      loudness: loudness[i] ?? 0,
    })),
    fps,
  );
  if (pool.source.length < fps * POOL_LIMITS.calmSeconds)
    throw new VideoImportError(
      'face_away',
      'The video has no stretch of a few seconds with the face in view throughout; face the camera for most of the clip',
    );
  const sound = frameSounds(
    pcm,
    library.map(({ i }) => i),
    fps,
  );

  onProgress('write', 0);
  const temp = join(packsDir, `.${req.id}-${process.pid}-${Date.now()}`);
  await mkdir(temp, { recursive: true });
  try {
    const baseClear: number[][] = [];
    const decoded = await decodeBaseFrames(
      req.file,
      plan,
      frames,
      pool.source,
      info,
      { box, mask },
      (f) => onProgress('write', f / 2),
      (k, crop) => {
        baseClear[k] = clearness(ringSamples(crop, box, canon(frames[pool.source[k]!]!), mesh), usualFace);
      },
    );
    const mouths = concat(library.map(({ f }) => f.crop!));
    const stats: VideoIndex['stats'] = {
      clipSeconds: Math.round(info.durationS * 100) / 100,
      clipSize: `${info.width}x${info.height}`,
      ...clipStats(info),
      facePx: Math.round(plan.facePx),
      frames: frames.length,
      trackedFraction: Math.round((validCount / Math.max(1, frames.length)) * 1000) / 1000,
      lostChecks: tracked.lost.checks,
      lostShape: tracked.lost.shape,
      lostMissing: tracked.lost.missing,
      lostCovered: coveredMouths,
      lipUnderNose: uncoverable.size,
      libraryStride: tracked.stride,
      mouthScale: cal.scale,
      audio: info.hasAudio ? 'yes' : 'no',
      audioCorrelation: Number.isNaN(cal.audioCorrelation)
        ? 'n/a'
        : Math.round(cal.audioCorrelation * 1000) / 1000,
    };
    const index: VideoIndex = {
      version: 1,
      size: VIDEO_LIMITS.framePx,
      fps,
      base: {
        frames: pool.source.length,
        // what a renderer without the graph plays: the stretches one after another
        loop: 'cut',
        toFrame: pool.source.map((i) => frames[i]!.toFrame),
        ring: decoded.ring.map((r) => r.map(round2) as [number, number, number]),
        source: pool.source,
        idle: pool.idle,
        speech: pool.speech,
        baked: pool.baked,
        landmarks: pool.source.map((i) => canon(frames[i]!)),
        pose: pool.source.map((i) => headPose(canon(frames[i]!))),
        clear: baseClear,
      },
      canonical: { landmarks: plan.reference.map(([x, y]): [number, number] => [round2(x), round2(y)]) },
      library: {
        frames: library.length,
        box,
        descriptors: library.map(({ i }) => roundDescriptor(cal.descriptors[i]!)),
        source: library.map(({ i }) => i),
        ring: library.map(({ i }) => ring.get(i)!.map(round2) as [number, number, number]),
        landmarks: libraryLandmarks,
        pose: libraryLandmarks.map(headPose),
        clear: libraryClear,
        sharpness: library.map(({ f }, k) =>
          sharpness(i420View(f.crop!, 0, box.width, box.height), box, libraryLandmarks[k]!),
        ),
        ...(sound.sounds.length
          ? {
              sound: sound.sounds.map((s) => Array.from(s, round2)),
              soundSpread: Math.round(sound.spread * 1000) / 1000,
            }
          : {}),
      },
      clip: { width: info.width, height: info.height, crop: plan.crop },
      stats,
    };
    // the whole index is built: the bake composes as the renderer would, then the graph sees the result
    const rest = restCrop(index);
    bakeClosedMouths(index, mouths, decoded.i420, pool.baked, rest);
    const frameBytes = i420Bytes(index.size, index.size);
    const graph = buildJumpGraph(
      pool.source.map((i, k) => ({
        source: i,
        thumb: thumbOfI420(decoded.i420.subarray(k * frameBytes, (k + 1) * frameBytes), index.size),
        landmarks: frames[i]!.landmarks,
      })),
      pool,
    );
    index.base.jumps = graph.jumps;
    index.base.jumpCost = graph.cost;
    Object.assign(stats, poolStats(pool, graph, rest, decoded.thumbError), {
      importSeconds: Math.round((Date.now() - started) / 100) / 10,
    });
    await writeFile(join(temp, VIDEO_FILES.base), decoded.i420);
    await writeFile(join(temp, VIDEO_FILES.mouths), mouths);
    // the preview: the first idle frame as it plays
    const first = Math.max(0, pool.idle.indexOf(true));
    const preview = i420ToRgba(
      decoded.i420.subarray(first * frameBytes, (first + 1) * frameBytes),
      index.size,
      index.size,
    );
    await writeFile(join(temp, VIDEO_FILES.index), JSON.stringify(index));
    // the same frames as VP9 for browsers (the SDK's client rendering downloads ~100× less)
    await encodeVideoForBrowsers(temp, index);
    await writeFile(
      join(temp, VIDEO_FILES.preview),
      await previewPngOf(preview, VIDEO_LIMITS.framePx, VIDEO_LIMITS.previewPx, 4),
    );
    await writeFile(join(temp, 'avatar.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    if (existsSync(target))
      throw new VideoImportError('exists', `An avatar with id ${req.id} already exists`);
    await rename(temp, target);
    onProgress('write', 1);
    return { manifest, stats };
  } catch (err) {
    await rm(temp, { recursive: true, force: true });
    throw err;
  }
}

const round2 = (v: number): number => Math.round(v * 100) / 100;

/** What the clip was, as decoded: turned upright by how much, its own rate, its colours. */
const clipStats = (info: ClipInfo): Record<string, number | string> => ({
  clipRotation: info.rotation,
  clipFrameRate: round2(info.frameRate),
  clipVariableRate: info.variableRate ? 'yes' : 'no',
  clipColour: info.hdr ?? (info.wideGamut ? 'bt2020' : 'sdr'),
});
const roundDescriptor = (
  d: VideoIndex['library']['descriptors'][number],
): VideoIndex['library']['descriptors'][number] => ({
  open: round2(d.open),
  width: round2(d.width),
  round: round2(d.round),
  teeth: round2(d.teeth),
});

function rethrowDecode(err: unknown): never {
  if (err instanceof FfmpegMissingError) throw new VideoImportError('ffmpeg_missing', err.message);
  if (err instanceof ClipUnreadableError)
    throw new VideoImportError('broken_file', `The video cannot be decoded: ${err.message}`);
  throw err;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** What the import says about its base frames (video.json's stats, the import benchmark). */
function poolStats(pool: BasePool, graph: JumpGraph, rest: number, thumbError: number): VideoIndex['stats'] {
  const count = (flags: readonly boolean[]): number => flags.filter(Boolean).length;
  const seamless = graph.cost.reduce((n, c) => n + c.filter((v) => v <= 1).length, 0);
  return {
    baseFrames: pool.source.length,
    baseIdle: count(pool.idle),
    baseSpeech: count(pool.speech),
    baseBaked: count(pool.baked),
    restCrop: rest,
    jumpLimit: graph.limit,
    jumpsPerFrame: Math.round((seamless / Math.max(1, pool.source.length)) * 100) / 100,
    baseThumbError: Math.round(thumbError * 100) / 100,
  };
}

/** Loudness of each video frame's audio, 0..1 against the clip's 95th percentile. */
function frameLoudness(pcm: Int16Array, frames: number, fps: number): Float64Array {
  const out = new Float64Array(frames);
  if (pcm.length === 0) return out;
  const per = Math.round(48_000 / fps);
  for (let i = 0; i < frames; i++) {
    let s = 0;
    const end = Math.min(pcm.length, (i + 1) * per);
    for (let k = i * per; k < end; k++) s += pcm[k]! * pcm[k]!;
    out[i] = Math.sqrt(s / Math.max(1, end - i * per));
  }
  const sorted = Float64Array.from(out).sort();
  const top = sorted[Math.floor(sorted.length * 0.95)] || 1;
  for (let i = 0; i < frames; i++) out[i] = Math.min(1, out[i]! / top);
  return out;
}
