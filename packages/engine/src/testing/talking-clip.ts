/**
 * Test footage of a talking head (issue 19, video avatars): no real footage can be downloaded, so
 * the test portrait (portrait-fixture.ts, scaled ×2) is made a photo avatar and rendered speaking
 * a phonetically varied passage with espeak-ng's audio, the mouth driven as the engine drives it
 * (the mouth track at each frame's centre, at rest between sentences) and the engine's animator
 * moving the head and blinking. Each avatar frame is placed on a plain background in a larger
 * video frame and encoded by Debian's ffmpeg. A sidecar JSON holds the ground truth of every frame
 * (mouth, motion, where the 68 landmarks were drawn), for comparing with what an import measures.
 *
 * "Away" (`awayFraction`): for that fraction of the clip (in its middle) no face is in view, while
 * speech goes on. `awayStyle: 'slide'` (the default): the avatar frame slides out of the video
 * sideways (≈ 0.4 s), stays out and slides back. `'back'`: the face fades (≈ 0.4 s) into a drawn
 * back of a head on the portrait's backdrop (a hair-coloured oval over a neck and shoulders), a
 * head-like shape with no face, and back.
 *
 * Clips are cached by their options and the code that makes them (a hash of both) in
 * `os.tmpdir()/mouthpiece-clips/<hash>.<format>` (+ `<hash>.json`, and the portrait's pack in `packs-*`),
 * so test files share them; a clip being made by another process is waited for, and clips unused
 * for 7 days are removed when a new one is made. This file loads
 * no native module: the renderer and espeak are imported when a clip is first made.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FaceMotion, MouthParams, Viseme } from '../face-state.js';
import { underCacheLock } from './cache-lock.js';
import { codecArgs, type ClipFormat } from './ffmpeg.js';

/** Bumped whenever what a clip looks like changes, so cached clips are made again. */
const GENERATOR_VERSION = 1;

/**
 * The folders (and a file) whose code decides a clip's pictures and sound, relative to the
 * package's src/: a change to any of them keys new clips.
 */
const MADE_BY = ['testing', 'avatar', 'render', 'animation', 'lipsync', 'session', 'speech', 'face-state.ts'];
/** Files in those folders that draw video avatars only (a clip is drawn by the photo renderer). */
const NOT_MADE_BY = new Set(['video-renderer.ts', 'mouth-selector.ts', 'synthetic-video-pack.ts']);

let fingerprint: string | undefined;

/**
 * A hash of the code that makes clips: the TypeScript sources of the folders above (also when
 * running from dist/, so tests under vitest and benchmarks from dist/ share clips), else dist/'s.
 */
function generatorFingerprint(): string {
  if (fingerprint !== undefined) return fingerprint;
  const here = fileURLToPath(new URL('..', import.meta.url));
  const src = here.replace(/\/dist\/$/, '/src/');
  const root = existsSync(join(src, 'testing', 'talking-clip.ts')) ? src : here;
  const h = createHash('sha256').update(String(GENERATOR_VERSION));
  const add = (path: string, base = root, tag = ''): void => {
    if (statSync(path).isDirectory()) for (const f of readdirSync(path).sort()) add(join(path, f), base, tag);
    else if (
      /\.(ts|js)$/.test(path) &&
      !/\.(test|d)\.ts$/.test(path) &&
      !NOT_MADE_BY.has(basename(path).replace(/\.js$/, '.ts'))
    )
      h.update(tag + path.slice(base.length)).update(readFileSync(path));
  };
  for (const m of MADE_BY) add(join(root, m));
  // the photo rig and inner mouth live in @mouthpiece/draw (packages/draw/src/photo)
  const draw = join(root, '..', '..', 'draw', root === src ? 'src' : 'dist');
  if (existsSync(join(draw, 'photo'))) add(join(draw, 'photo'), draw, 'draw/');
  fingerprint = h.digest('hex').slice(0, 12);
  return fingerprint;
}

export interface TalkingClipOptions {
  /**
   * Length in seconds (default: the passage's natural length, ≈ 28 s). Longer loops the passage
   * (whole sentences only, the rest idle); shorter keeps the sentences that fit.
   */
  durationS?: number;
  /** Video frame size, even (default 1280×720). */
  width?: number;
  height?: number;
  /** Frames per second (default 25). */
  fps?: number;
  /**
   * Side of the square avatar frame in the video, pixels (default: 80 % of the height, or for two
   * faces what fits side by side). The face is ≈ 40 % of it across.
   */
  faceSize?: number;
  /** Top-left corner of the (first) avatar frame (default: centred, or centred in its half). */
  x?: number;
  y?: number;
  /** `#rrggbb` around the avatar frame (default `#3c4650`). */
  background?: string;
  /** With an audio track (default true). */
  audio?: boolean;
  /** Speak the passage (default true); false: idle motion and blinks only. */
  speech?: boolean;
  /** Copies of the avatar side by side, each with its own head motion (default 1). */
  faces?: 1 | 2;
  /** The fraction of the clip (0–1) the face is out of view (slid out sideways, in the middle). */
  awayFraction?: number;
  /** How the face is out of view: slid out of the frame (default) or a back of a head instead. */
  awayStyle?: 'slide' | 'back';
  /** A small face, ≈ 90 px across (overrides faceSize). */
  tiny?: boolean;
  /** Container and codecs: mp4 (H.264 + AAC), mov (H.264 + AAC), webm (VP8 + Opus). Default mp4. */
  format?: ClipFormat;
  /** The animator's seed (head motion, blink times); default 1. */
  seed?: number;
  /** A built-in espeak voice (default `en-us-female`) and its speed (default 1). */
  voiceId?: string;
  speed?: number;
  /** Where clips are cached (default `os.tmpdir()/mouthpiece-clips`). */
  cacheDir?: string;
  /** Use a cached clip when there is one (default true). */
  cache?: boolean;
}

/** The options with every default filled in: what a cached clip is keyed by. */
export type ResolvedClipOptions = Required<
  Omit<TalkingClipOptions, 'cacheDir' | 'cache' | 'durationS' | 'faceSize' | 'x' | 'y'>
> & {
  durationS: number | undefined;
  faceSize: number | undefined;
  x: number | undefined;
  y: number | undefined;
};

/** Where an avatar frame sits in the video. */
export interface ClipFacePlacement {
  /** Side of the avatar frame and its top-left corner (before sliding away). */
  size: number;
  x: number;
  y: number;
  /** The face's width (jaw, landmark 0 to 16) in video pixels at rest. */
  acrossPx: number;
}

export interface ClipFaceTruth {
  /** Top-left corner of the avatar frame in this frame (it moves while sliding away). */
  x: number;
  y: number;
  /** All 68 landmarks inside the video frame. */
  visible: boolean;
  /** The animator's motion (head offset in pixels at 512×512, tilt in radians, blink 0–1, …). */
  motion: FaceMotion;
  /** Where the 68 landmarks were drawn, video pixels; null when the face was wholly out of view. */
  landmarks: Array<[number, number]> | null;
}

export interface ClipFrameTruth {
  /** Frame index and its start time. */
  i: number;
  tS: number;
  /** A sentence sounds at the frame's centre. */
  speaking: boolean;
  /** Index into `sentences`, or -1. */
  sentence: number;
  viseme: Viseme;
  emphasis: number;
  /** The mouth every face was rendered with. */
  mouth: MouthParams;
  faces: ClipFaceTruth[];
}

/** The sidecar JSON: what was drawn and said, frame by frame. */
export interface ClipTruth {
  version: number;
  options: ResolvedClipOptions;
  width: number;
  height: number;
  fps: number;
  frames: number;
  durationS: number;
  audio: boolean;
  /** The frames [from, to) where every face is wholly out of view, or null. */
  away: [number, number] | null;
  sentences: Array<{
    text: string;
    startS: number;
    endS: number;
    words: Array<{ text: string; startS: number; endS: number }>;
  }>;
  faces: ClipFacePlacement[];
  perFrame: ClipFrameTruth[];
}

export interface TalkingClip {
  file: string;
  /** The sidecar JSON (ClipTruth); read it with readClipTruth(). */
  truthFile: string;
  format: ClipFormat;
  width: number;
  height: number;
  fps: number;
  frames: number;
  durationS: number;
  audio: boolean;
  faces: ClipFacePlacement[];
  away: [number, number] | null;
  /** Came from the cache (then madeInMs is how long it took when it was made). */
  cached: boolean;
  madeInMs: number;
}

export function resolveClipOptions(o: TalkingClipOptions): ResolvedClipOptions {
  const r: ResolvedClipOptions = {
    durationS: o.durationS,
    width: o.width ?? 1280,
    height: o.height ?? 720,
    fps: o.fps ?? 25,
    faceSize: o.faceSize,
    x: o.x,
    y: o.y,
    background: o.background ?? '#3c4650',
    audio: o.audio ?? true,
    speech: o.speech ?? true,
    faces: o.faces ?? 1,
    awayFraction: o.awayFraction ?? 0,
    awayStyle: o.awayStyle ?? 'slide',
    tiny: o.tiny ?? false,
    format: o.format ?? 'mp4',
    seed: o.seed ?? 1,
    voiceId: o.voiceId ?? 'en-us-female',
    speed: o.speed ?? 1,
  };
  const bad = (what: string): never => {
    throw new Error(`makeTalkingClip: ${what}`);
  };
  if (
    !Number.isInteger(r.width) ||
    !Number.isInteger(r.height) ||
    r.width % 2 ||
    r.height % 2 ||
    r.width < 16 ||
    r.height < 16
  )
    bad(`width and height must be even integers ≥ 16 (got ${r.width}×${r.height})`);
  if (!(r.fps > 0 && r.fps <= 120)) bad(`fps must be in (0, 120] (got ${r.fps})`);
  if (r.durationS !== undefined && !(r.durationS > 0 && r.durationS <= 600))
    bad(`durationS must be in (0, 600] (got ${r.durationS})`);
  if (r.faceSize !== undefined && !(Number.isInteger(r.faceSize) && r.faceSize >= 32))
    bad(`faceSize must be an integer ≥ 32 (got ${r.faceSize})`);
  if (!/^#[0-9a-fA-F]{6}$/.test(r.background)) bad(`background must be #rrggbb (got ${r.background})`);
  if (!(r.awayFraction >= 0 && r.awayFraction <= 1))
    bad(`awayFraction must be in [0, 1] (got ${r.awayFraction})`);
  if (r.awayStyle !== 'slide' && r.awayStyle !== 'back')
    bad(`awayStyle must be slide or back (got ${String(r.awayStyle)})`);
  if (r.faces !== 1 && r.faces !== 2) bad(`faces must be 1 or 2 (got ${String(r.faces)})`);
  if (!['mp4', 'webm', 'mov'].includes(r.format)) bad(`format must be mp4, webm or mov (got ${r.format})`);
  return r;
}

/** The default cache folder. */
export function clipCacheDir(): string {
  return join(tmpdir(), 'mouthpiece-clips');
}

function clipKey(r: ResolvedClipOptions): string {
  return createHash('sha256')
    .update(JSON.stringify({ code: generatorFingerprint(), ...r }))
    .digest('hex')
    .slice(0, 16);
}

/** The sidecar of a clip. */
export function readClipTruth(truthFile: string): ClipTruth {
  return JSON.parse(readFileSync(truthFile, 'utf8')) as ClipTruth;
}

function answer(
  file: string,
  truthFile: string,
  truth: ClipTruth,
  cached: boolean,
  madeInMs: number,
): TalkingClip {
  return {
    file,
    truthFile,
    format: truth.options.format,
    width: truth.width,
    height: truth.height,
    fps: truth.fps,
    frames: truth.frames,
    durationS: truth.durationS,
    audio: truth.audio,
    faces: truth.faces,
    away: truth.away,
    cached,
    madeInMs,
  };
}

/** Cached clips (and packs) unused for this long are removed when a new clip is made. */
const UNUSED_MS = 7 * 24 * 3600_000;

async function prune(dir: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(dir)) {
    if (name.endsWith('.lock')) continue;
    const path = join(dir, name);
    try {
      if (now - (await stat(path)).mtimeMs > UNUSED_MS) await rm(path, { recursive: true, force: true });
    } catch {
      // gone meanwhile (another process pruning)
    }
  }
}

/**
 * A talking-head clip for the options: from the cache, or made (and cached). Throws saying what
 * to install when ffmpeg or the test portrait is missing.
 */
export async function makeTalkingClip(opts: TalkingClipOptions = {}): Promise<TalkingClip> {
  const r = resolveClipOptions(opts);
  const dir = opts.cacheDir ?? clipCacheDir();
  await mkdir(dir, { recursive: true });
  const base = join(dir, clipKey(r));
  const file = `${base}.${r.format}`;
  const truthFile = `${base}.json`;
  const lock = `${base}.lock`;
  const done = (): boolean => existsSync(file) && existsSync(truthFile); // the sidecar is renamed last
  const fromCache = async (): Promise<TalkingClip> => {
    const truth = JSON.parse(await readFile(truthFile, 'utf8')) as ClipTruth & { madeInMs: number };
    const now = new Date();
    await Promise.all([file, truthFile].map((f) => utimes(f, now, now))); // in use: kept by prune()
    return answer(file, truthFile, truth, true, truth.madeInMs);
  };
  const make = async (): Promise<TalkingClip> => {
    codecArgs(r.format, r.audio); // ffmpeg and its encoders are there, before any work
    const started = performance.now();
    const tmp = `${base}.${process.pid}.tmp`;
    const { renderClip } = await import('./talking-clip-render.js');
    const packsDir = join(dir, `packs-${generatorFingerprint()}`);
    const truth = await renderClip(r, { out: `${tmp}.${r.format}`, packsDir, tmp });
    const madeInMs = Math.round(performance.now() - started);
    await writeFile(`${tmp}.json`, JSON.stringify({ ...truth, madeInMs }));
    await rename(`${tmp}.${r.format}`, file);
    await rename(`${tmp}.json`, truthFile);
    const now = new Date();
    await utimes(packsDir, now, now);
    await prune(dir);
    return answer(file, truthFile, truth, false, madeInMs);
  };
  return underCacheLock(lock, done, fromCache, make, opts.cache !== false);
}
