/**
 * Makes a photo avatar pack from one portrait: decodes it, finds the face and its landmarks (in a
 * worker thread, face-detector.ts), refuses what cannot be animated, crops a square around the
 * face and writes the pack (avatar.json, portrait.png, preview.png) into a folder of packs. The
 * pack appears complete or not at all: it is written beside the target and renamed into place.
 */
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createCanvas, Image, type Canvas } from '@napi-rs/canvas';
import { jpegOrientation, upright } from './exif-orientation.js';
import type { DetectedFace } from './face-detector.js';
import { validateManifest, type PhotoAvatarManifest } from './manifest.js';
import { PHOTO_LIMITS, PhotoImportError, type PhotoImportRequest } from './photo-import-errors.js';

export {
  PHOTO_LIMITS,
  PhotoImportError,
  PhotoImportErrorCode,
  type PhotoImportRequest,
} from './photo-import-errors.js';

function decode(bytes: Uint8Array): Image {
  const png = bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47;
  const jpeg = bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
  if (!png && !jpeg) throw new PhotoImportError('not_an_image', 'The image must be a PNG or JPEG file');
  const img = new Image();
  try {
    img.src = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch {
    throw new PhotoImportError('not_an_image', 'The image cannot be decoded (a damaged PNG or JPEG file)');
  }
  if (!img.complete || img.width === 0 || img.height === 0)
    throw new PhotoImportError('not_an_image', 'The image cannot be decoded (a damaged PNG or JPEG file)');
  return img;
}

/** The worker's built file (from src/ under vitest, the dist/ one: build first). */
function workerPath(): string {
  const here = fileURLToPath(import.meta.url);
  const file = here.endsWith('.ts')
    ? here.replace(/\/src\/avatar\/photo-import\.ts$/, '/dist/avatar/face-detector-worker.js')
    : fileURLToPath(new URL('./face-detector-worker.js', import.meta.url));
  if (!existsSync(file)) throw new Error(`${file} is missing: build first (npx tsc -b)`);
  return file;
}

/** Runs the detector in a worker thread that ends with the answer. */
export function detectFaces(rgba: Uint8Array, width: number, height: number): Promise<DetectedFace[]> {
  const worker = new Worker(workerPath());
  return new Promise<DetectedFace[]>((resolve, reject) => {
    worker.once('message', (m: { faces?: DetectedFace[]; error?: string }) => {
      if (m.faces) resolve(m.faces);
      else reject(new Error(`face detection failed: ${m.error ?? 'no answer'}`));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`face detector exited (${code})`)));
    worker.postMessage({ rgba, width, height });
  }).finally(() => void worker.terminate());
}

/** Finds the one face of an image, in the image's pixels; throws PhotoImportError otherwise. */
export async function findFace(img: Image | Canvas): Promise<DetectedFace> {
  const k = Math.min(1, PHOTO_LIMITS.detectPx / Math.max(img.width, img.height));
  const w = Math.max(1, Math.round(img.width * k));
  const h = Math.max(1, Math.round(img.height * k));
  const canvas = createCanvas(w, h);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0, w, h);
  const px = ctx.getImageData(0, 0, w, h).data;
  const faces = await detectFaces(new Uint8Array(px.buffer, px.byteOffset, px.length), w, h);
  if (faces.length === 0)
    throw new PhotoImportError('no_face', 'No face was found in the image; use a frontal portrait');
  if (faces.length > 1)
    throw new PhotoImportError(
      'several_faces',
      `The image shows ${faces.length} faces; use a portrait of one person (crop the others out)`,
    );
  const f = faces[0]!;
  const face: DetectedFace = {
    score: f.score,
    box: { x: f.box.x / k, y: f.box.y / k, width: f.box.width / k, height: f.box.height / k },
    landmarks: f.landmarks.map(([x, y]): [number, number] => [x / k, y / k]),
  };
  const across = Math.hypot(
    face.landmarks[16]![0] - face.landmarks[0]![0],
    face.landmarks[16]![1] - face.landmarks[0]![1],
  );
  if (across < PHOTO_LIMITS.minFacePx)
    throw new PhotoImportError(
      'face_too_small',
      `The face is ${Math.round(across)} px across; at least ${PHOTO_LIMITS.minFacePx} px are needed (use a larger or closer photo)`,
    );
  return face;
}

/** The square crop around a face: the face ~40% of its width, eyes a little above the middle. */
export function cropAround(
  landmarks: ReadonlyArray<readonly [number, number]>,
  width: number,
  height: number,
): { x: number; y: number; side: number } {
  const [x0, y0] = landmarks[0]!;
  const [x16, y16] = landmarks[16]!;
  const across = Math.hypot(x16 - x0, y16 - y0);
  const cx = (x0 + x16) / 2;
  const cy = landmarks[29]![1];
  const side = Math.min(width, height, Math.round(across * 2.5));
  const x = Math.round(Math.min(Math.max(0, cx - side / 2), width - side));
  const y = Math.round(Math.min(Math.max(0, cy - side * 0.45), height - side));
  return { x, y, side };
}

/** Decodes, checks and crops a portrait and writes its pack as `<packsDir>/<id>`. */
export async function importPhotoAvatar(
  req: PhotoImportRequest,
  packsDir: string,
): Promise<PhotoAvatarManifest> {
  if (req.image.byteLength > PHOTO_LIMITS.maxBytes)
    throw new PhotoImportError(
      'image_too_large',
      `The image is over ${PHOTO_LIMITS.maxBytes / 1024 / 1024} MiB`,
    );
  // phone photos stored sideways carry an EXIF orientation: turn them upright first
  const img = upright(decode(req.image), jpegOrientation(req.image));
  if (img.width > PHOTO_LIMITS.maxSidePx || img.height > PHOTO_LIMITS.maxSidePx)
    throw new PhotoImportError(
      'image_too_large',
      `The image is ${img.width}×${img.height} px; at most ${PHOTO_LIMITS.maxSidePx} px a side`,
    );
  const draft = {
    id: req.id,
    name: req.name,
    version: 1 as const,
    ...(req.description ? { description: req.description } : {}),
    render: 'photo' as const,
    image: 'portrait.png',
    landmarks: Array.from({ length: 68 }, (): [number, number] => [0, 0]),
    source: 'upload' as const,
  };
  try {
    validateManifest(draft, 'avatar');
  } catch (err) {
    throw new PhotoImportError('invalid_manifest', (err as Error).message.replace(/^avatar: /, ''));
  }
  const target = join(packsDir, req.id);
  if (existsSync(target)) throw new PhotoImportError('exists', `An avatar with id ${req.id} already exists`);
  const face = await findFace(img);
  const crop = cropAround(face.landmarks, img.width, img.height);
  const out = Math.min(crop.side, PHOTO_LIMITS.portraitPx);
  const k = out / crop.side;
  const portrait = createCanvas(out, out);
  portrait.getContext('2d').drawImage(img, crop.x, crop.y, crop.side, crop.side, 0, 0, out, out);
  const preview = createCanvas(PHOTO_LIMITS.previewPx, PHOTO_LIMITS.previewPx);
  preview.getContext('2d').drawImage(portrait, 0, 0, PHOTO_LIMITS.previewPx, PHOTO_LIMITS.previewPx);
  const manifest: PhotoAvatarManifest = {
    ...draft,
    landmarks: face.landmarks.map(([x, y]): [number, number] => [
      Math.round((x - crop.x) * k * 10) / 10,
      Math.round((y - crop.y) * k * 10) / 10,
    ]),
  };
  const temp = join(packsDir, `.${req.id}-${process.pid}-${Date.now()}`);
  await mkdir(temp, { recursive: true });
  try {
    await writeFile(join(temp, 'portrait.png'), await portrait.encode('png'));
    await writeFile(join(temp, 'preview.png'), await preview.encode('png'));
    await writeFile(join(temp, 'avatar.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    if (existsSync(target))
      throw new PhotoImportError('exists', `An avatar with id ${req.id} already exists`);
    await rename(temp, target);
  } catch (err) {
    await rm(temp, { recursive: true, force: true });
    throw err;
  }
  return manifest;
}
