/**
 * A synthetic video avatar pack (video/pack.ts) for tests and the render benchmark: a face-like
 * ellipse drawn with @napi-rs/canvas, no clip and no import. Base frames show the face with a
 * closed mouth, placed by each frame's transform, with a marker square (top left) whose grey
 * tells the frames apart. Library crops show the face in canonical position with a mouth opened
 * as its descriptor says; the inside of the mouth is a grey unique to the crop (cavityGrey), so a
 * test can tell which crop a rendered mouth came from. Rings are measured as the import would.
 * Tests check mechanics, not looks.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SKRSContext2D } from '@napi-rs/canvas';
import type { VideoAvatarManifest } from '../avatar/manifest.js';
import { rgbToI420 } from '../video/pixels.js';
import { lowerFaceBox, seamMask } from '../video/mask.js';
import { encodeVideoForBrowsers } from '../video/browser-video.js';
import {
  applySimilarity,
  i420Bytes,
  i420View,
  VIDEO_FILES,
  type MouthDescriptor,
  type Similarity,
  type VideoIndex,
} from '../video/pack.js';

export interface SyntheticVideoPackOptions {
  id?: string;
  /** Side of a base frame (even); default 256. */
  size?: number;
  /** Base frames; default 8. */
  baseFrames?: number;
  loop?: VideoIndex['base']['loop'];
  /** One crop per descriptor; default 12 crops opening evenly from 0 to 1. */
  descriptors?: MouthDescriptor[];
  /** Each crop's source clip frame; default k. */
  source?: number[];
  /** Canonical → base frame i; default whole-pixel sway of up to 2 px. */
  toFrame?: (i: number) => Similarity;
  /** Each crop filled with one flat colour instead of a drawn face (for seam tests). */
  flatCrop?: (k: number) => [number, number, number];
  /** 'zero': every ring written as 0 (no colour match); default 'measured'. */
  rings?: 'measured' | 'zero';
  /**
   * Base-frame fields written as given (the video-texture graph and the frames' roles, docs/avatars.md
   * "Video avatars"): `source` (default 1000 + i), `jumps`, `jumpCost`, `idle`, `speech`, `baked`.
   * Without `jumps` the pack is one imported before the graph: the renderer loops.
   */
  base?: Partial<Pick<VideoIndex['base'], 'source' | 'jumps' | 'jumpCost' | 'idle' | 'speech' | 'baked'>>;
  /**
   * Also write the frames as VP9 for browsers (base.ivf, mouths.ivf) as the import does
   * (video/browser-video.ts; runs ffmpeg); default false, a pack as imported before them.
   */
  encoded?: boolean;
  /**
   * The landmarks the face composite needs (docs/design.md §14); default true. false: a pack as
   * imported before them, composited through the feathered ellipse.
   */
  faceData?: boolean;
}

export interface SyntheticVideoPack {
  dir: string;
  manifest: VideoAvatarManifest;
  index: VideoIndex;
}

/** The RGB grey inside crop k's mouth. */
export const cavityGrey = (k: number): number => 20 + ((k * 9) % 200);

/** The canonical face: centre, semi-axes (pixels at a frame of `size`), and its 68 landmarks. */
export function syntheticFace(size: number) {
  const cx = size / 2;
  const cy = size * 0.45;
  const rx = size * 0.2;
  const ry = size * 0.26;
  const L: Array<[number, number]> = [];
  for (let j = 0; j <= 16; j++) {
    const th = Math.PI - (Math.PI * j) / 16;
    L.push([cx + rx * Math.cos(th), cy + ry * Math.sin(th)]); // jaw 0..16, chin at 8
  }
  for (let j = 0; j < 10; j++)
    L.push([cx + rx * (j < 5 ? -0.7 + 0.12 * j : 0.22 + 0.12 * (j - 5)), cy - 0.45 * ry]);
  for (let j = 0; j < 4; j++) L.push([cx, cy - 0.35 * ry + 0.13 * ry * j]); // nose bridge 27..30
  for (let j = 0; j < 5; j++) L.push([cx + rx * (-0.12 + 0.06 * j), cy + 0.15 * ry]); // 31..35
  for (const side of [-1, 1])
    for (let j = 0; j < 6; j++) {
      const th = (Math.PI * 2 * j) / 6;
      L.push([cx + side * 0.4 * rx + 0.15 * rx * Math.cos(th), cy - 0.25 * ry + 0.05 * ry * Math.sin(th)]);
    }
  const my = cy + 0.5 * ry;
  for (let j = 0; j < 20; j++) {
    const th = (Math.PI * 2 * j) / (j < 12 ? 12 : 8);
    const k = j < 12 ? 0.3 : 0.2;
    L.push([cx + k * rx * Math.cos(th), my + 0.08 * ry * Math.sin(th)]);
  }
  return { cx, cy, rx, ry, mouth: [cx, my] as [number, number], landmarks: L };
}

type Face = ReturnType<typeof syntheticFace>;

function drawFace(c: SKRSContext2D, f: Face, m: MouthDescriptor, grey: number): void {
  c.fillStyle = 'rgb(222,184,150)';
  c.beginPath();
  c.ellipse(f.cx, f.cy, f.rx, f.ry, 0, 0, Math.PI * 2);
  c.fill();
  c.fillStyle = 'rgb(40,30,30)';
  for (const side of [-1, 1]) {
    c.beginPath();
    c.ellipse(f.cx + side * 0.4 * f.rx, f.cy - 0.25 * f.ry, 0.13 * f.rx, 0.06 * f.ry, 0, 0, Math.PI * 2);
    c.fill();
  }
  const [mx, my] = f.mouth;
  const halfW = f.rx * (0.22 + 0.25 * m.width) * (1 - 0.35 * m.round);
  const open = m.open * 0.22 * f.ry;
  c.fillStyle = 'rgb(170,80,80)';
  c.beginPath();
  c.ellipse(mx, my, halfW + 3, open / 2 + 4, 0, 0, Math.PI * 2);
  c.fill();
  if (open >= 1) {
    c.fillStyle = `rgb(${grey},${grey},${grey})`;
    c.beginPath();
    c.ellipse(mx, my, halfW, open / 2, 0, 0, Math.PI * 2);
    c.fill();
    c.fillStyle = 'rgb(240,240,235)';
    c.fillRect(mx - halfW * 0.6, my - open / 2, halfW * 1.2, (open / 2) * m.teeth * 0.5);
  }
}

function background(c: SKRSContext2D, size: number): void {
  const g = c.createLinearGradient(0, 0, 0, size);
  g.addColorStop(0, 'rgb(70,90,120)');
  g.addColorStop(1, 'rgb(40,50,70)');
  c.fillStyle = g;
  c.fillRect(0, 0, size, size);
}

const defaultDescriptors = (): MouthDescriptor[] =>
  Array.from({ length: 12 }, (_, k) => ({ open: k / 11, width: 0.45, round: 0.1, teeth: 0.3 }));

/** Writes the pack into `parent/<id>` and returns it. */
export async function writeSyntheticVideoPack(
  parent: string,
  opts: SyntheticVideoPackOptions = {},
): Promise<SyntheticVideoPack> {
  const { createCanvas } = await import('@napi-rs/canvas'); // not loaded by the fakes' users
  const { id = 'synthetic-video', size = 256, baseFrames = 8, loop = 'cut' } = opts;
  const descriptors = opts.descriptors ?? defaultDescriptors();
  const source = opts.source ?? descriptors.map((_, k) => k);
  const toFrame = opts.toFrame ?? ((i: number): Similarity => [1, 0, Math.round(2 * Math.sin(i)), 0]);
  const face = syntheticFace(size);
  const box = lowerFaceBox(face.landmarks);
  const mask = seamMask(box.width, box.height);
  const canvas = createCanvas(size, size);
  const c = canvas.getContext('2d');
  const closed: MouthDescriptor = { open: 0, width: 0.35, round: 0, teeth: 0 };

  const base = new Uint8Array(baseFrames * i420Bytes(size, size));
  const transforms: Similarity[] = [];
  for (let i = 0; i < baseFrames; i++) {
    const t = toFrame(i);
    transforms.push(t);
    c.setTransform(1, 0, 0, 1, 0, 0);
    background(c, size);
    c.fillStyle = `rgb(${(i * 23) % 256},${(i * 23) % 256},${(i * 23) % 256})`;
    c.fillRect(0, 0, 16, 16);
    c.setTransform(t[0], t[1], -t[1], t[0], t[2], t[3]);
    drawFace(c, face, closed, 0);
    const px = c.getImageData(0, 0, size, size).data;
    rgbToI420(px, size, size, 4, base.subarray(i * i420Bytes(size, size), (i + 1) * i420Bytes(size, size)));
  }

  const cropBytes = i420Bytes(box.width, box.height);
  const mouths = new Uint8Array(descriptors.length * cropBytes);
  const crop = createCanvas(box.width, box.height);
  const cc = crop.getContext('2d');
  descriptors.forEach((d, k) => {
    cc.setTransform(1, 0, 0, 1, -box.x, -box.y);
    background(cc, size);
    drawFace(cc, face, d, cavityGrey(k));
    const flat = opts.flatCrop?.(k);
    if (flat) {
      cc.setTransform(1, 0, 0, 1, 0, 0);
      cc.fillStyle = `rgb(${flat.join(',')})`;
      cc.fillRect(0, 0, box.width, box.height);
    }
    const px = cc.getImageData(0, 0, box.width, box.height).data;
    rgbToI420(px, box.width, box.height, 4, mouths.subarray(k * cropBytes, (k + 1) * cropBytes));
  });

  const zero = opts.rings === 'zero';
  const index: VideoIndex = {
    version: 1,
    size,
    fps: 25,
    clip: { width: size, height: size, crop: { x: 0, y: 0, side: size } },
    base: {
      frames: baseFrames,
      loop,
      toFrame: transforms,
      ring: transforms.map((t, i) => (zero ? [0, 0, 0] : baseRing(base, i, size, t, box, mask))),
      source: transforms.map((_, i) => 1000 + i),
      ...opts.base,
    },
    canonical: { landmarks: face.landmarks },
    library: {
      frames: descriptors.length,
      box,
      descriptors,
      source,
      ring: descriptors.map((_, k) => (zero ? [0, 0, 0] : cropRing(mouths, k, box, mask))),
    },
    stats: { synthetic: 'yes' },
  };
  if (opts.faceData !== false) {
    const flat = face.landmarks.flat();
    index.base.landmarks = transforms.map(() => flat);
    index.base.pose = transforms.map(() => [0, 1]);
    index.library.landmarks = descriptors.map((d) => cropLandmarks(face, d));
    index.library.pose = descriptors.map(() => [0, 1]);
  }
  const manifest: VideoAvatarManifest = {
    id,
    name: 'Synthetic video',
    version: 1,
    render: 'video',
    source: 'pack',
  };
  const dir = join(parent, id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'avatar.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(dir, VIDEO_FILES.index), JSON.stringify(index));
  writeFileSync(join(dir, VIDEO_FILES.base), base);
  writeFileSync(join(dir, VIDEO_FILES.mouths), mouths);
  if (opts.encoded) await encodeVideoForBrowsers(dir, index);
  const thumb = createCanvas(256, 256);
  thumb.getContext('2d').drawImage(canvas, 0, 0, 256, 256);
  writeFileSync(join(dir, VIDEO_FILES.preview), await thumb.encode('png'));
  return { dir, manifest, index };
}

/**
 * A crop's landmarks: the face's, its lips (48–67) parted as the drawn mouth is, and its jaw
 * (4–12) dropped a little with the opening, as a real jaw drops (the drawing's does not: the
 * composite's chin warp then runs as it does on real footage).
 */
function cropLandmarks(f: Face, d: MouthDescriptor): number[] {
  const open = d.open * 0.22 * f.ry;
  const my = f.mouth[1];
  return f.landmarks.flatMap(([x, y], i) =>
    i >= 4 && i <= 12
      ? [x, y + 0.3 * open * Math.sin(((i - 4) / 8) * Math.PI)]
      : i >= 60
        ? [x, my + Math.sign(y - my) * (open / 2)]
        : i >= 48
          ? [x, y + Math.sign(y - my) * (open / 2)]
          : [x, y],
  );
}

type Box = VideoIndex['library']['box'];
type Mask = ReturnType<typeof seamMask>;

const mean = (plane: Uint8Array, at: Iterable<number>): number => {
  let sum = 0;
  let n = 0;
  for (const i of at) {
    sum += plane[i]!;
    n++;
  }
  return n ? sum / n : 0;
};

function cropRing(mouths: Uint8Array, k: number, box: Box, mask: Mask): [number, number, number] {
  const v = i420View(mouths, k * i420Bytes(box.width, box.height), box.width, box.height);
  return [mean(v.y, mask.ring), mean(v.u, mask.ringC), mean(v.v, mask.ringC)];
}

/** The base frame's colour on the ring, each ring pixel mapped into the frame (nearest pixel). */
function baseRing(base: Uint8Array, i: number, size: number, t: Similarity, box: Box, mask: Mask) {
  const v = i420View(base, i * i420Bytes(size, size), size, size);
  const at = (ring: Uint32Array, w: number, f: number): number[] =>
    Array.from(ring, (p) => {
      const [x, y] = applySimilarity(t, box.x + ((p % w) + 0.5) * f, box.y + (Math.floor(p / w) + 0.5) * f);
      const side = size / f;
      const fx = Math.max(0, Math.min(side - 1, Math.floor(x / f)));
      const fy = Math.max(0, Math.min(side - 1, Math.floor(y / f)));
      return fy * side + fx;
    });
  const yAt = at(mask.ring, box.width, 1);
  const cAt = at(mask.ringC, box.width >> 1, 2);
  return [mean(v.y, yAt), mean(v.u, cAt), mean(v.v, cAt)] as [number, number, number];
}
