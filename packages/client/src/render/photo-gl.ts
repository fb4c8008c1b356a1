/**
 * The photo avatar drawn by the browser (`render: 'client'`, docs/design.md §13.5). The engine's
 * own rig and maths (@mouthpiece/draw's photo code: the same mesh from the manifest's landmarks,
 * the same mode weights, head offset and tilt steps) place the mesh each frame; WebGL warps the
 * portrait over it in one pass with trilinear filtering, so the face is resampled once, from the
 * portrait itself, at the canvas's own size. The inner mouth is the engine's per-pixel shading:
 * the box where the lips part is read back, shaded on the CPU by the same code and drawn back
 * pixel for pixel.
 */
import {
  cavityBox,
  createInnerMouth,
  faceAxes,
  markTriangles,
  mouthColours,
  photoFramePose,
  photoLayout,
  place,
  pose,
  PHOTO_POSE,
  type Image32,
  type MouthColours,
  type PhotoFramePose,
  type PhotoLayout,
  type PhotoRig,
} from '@mouthpiece/draw';
import { PackFileRole, type AnimationFrame } from '@mouthpiece/protocol';
import { createPhotoGl, openGl, type GlMesh, type PhotoGl } from './photo-gl-context.js';
import { RendererUnavailable, type BrowserRenderer, type LoadedPack, type RendererFactory } from './types.js';

/** The portrait as decoded: the texture's source and its RGBA pixels (the rig reads colours). */
interface Portrait {
  bitmap: ImageBitmap;
  pixels: Image32;
}

/** Everything that depends on the canvas's size: the laid-out rig and its static mesh parts. */
interface Sized {
  layout: PhotoLayout;
  /** The triangles the modes move (not the cavity's), with each vertex's place in the portrait. */
  mesh: GlMesh;
  /** Rest and frame positions of the rig's vertices, and the frame's in the mouth box. */
  src: Float64Array;
  dst: Float64Array;
  local: Float64Array;
  /** The cavity's triangles, drawn as the background where it is (see draw()). */
  cavity: GlMesh;
  colours: MouthColours | undefined;
  /** The last frame's pose and its head's placement (tilt step and offset). */
  last: string;
  head: string;
}

function landmarksOf(pack: LoadedPack): Array<[number, number]> {
  const l = pack.manifest['landmarks'];
  const ok =
    Array.isArray(l) &&
    l.length === 68 &&
    l.every((p) => Array.isArray(p) && p.length === 2 && p.every((v) => Number.isFinite(v)));
  if (!ok) throw new RendererUnavailable('pack-failed', 'The photo avatar has no 68 landmarks');
  return l as Array<[number, number]>;
}

async function decodePortrait(pack: LoadedPack): Promise<Portrait> {
  const entry = pack.files.find((f) => f.role === PackFileRole.texture);
  const bytes = entry && pack.bytes.get(entry.name);
  if (!entry || !bytes) throw new RendererUnavailable('pack-failed', 'The photo avatar has no portrait');
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(new Blob([bytes], { type: entry.contentType }), {
      premultiplyAlpha: 'none',
      colorSpaceConversion: 'none',
    });
  } catch {
    throw new RendererUnavailable('pack-failed', "The photo avatar's portrait cannot be decoded");
  }
  const { width, height } = bitmap;
  const canvas =
    typeof OffscreenCanvas === 'function'
      ? new OffscreenCanvas(width, height)
      : Object.assign(document.createElement('canvas'), { width, height });
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new RendererUnavailable('pack-failed', 'No 2D canvas to read the portrait with');
  ctx.drawImage(bitmap, 0, 0);
  return { bitmap, pixels: { px: ctx.getImageData(0, 0, width, height).data, width, height } };
}

/** The portrait's pixel (x, y) in the rig's coordinates is (x + left/scale, y + top/scale). */
function sizedFor(layout: PhotoLayout, portrait: Image32): Sized {
  const { rig, scale, left, top } = layout;
  const n = rig.rest.length / 2;
  const uvs = new Float32Array(n * 2);
  for (let i = 0; i < n; i++) {
    uvs[i * 2] = (rig.rest[i * 2]! - left / scale) / portrait.width;
    uvs[i * 2 + 1] = (rig.rest[i * 2 + 1]! - top / scale) / portrait.height;
  }
  // (the triangles no mode moves are the background itself, rigidly placed: only these are drawn)
  const indices: number[] = [];
  for (const t of [...rig.mouthTris, ...rig.lidTris, ...rig.browTris])
    indices.push(rig.tris[t * 3]!, rig.tris[t * 3 + 1]!, rig.tris[t * 3 + 2]!);
  const cavity = rig.cavity.flatMap((t) => [rig.tris[t * 3]!, rig.tris[t * 3 + 1]!, rig.tris[t * 3 + 2]!]);
  return {
    layout,
    mesh: { positions: new Float32Array(n * 2), uvs, indices: Uint16Array.from(indices) },
    cavity: {
      positions: new Float32Array(n * 2),
      uvs: new Float32Array(n * 2),
      indices: Uint16Array.from(cavity),
    },
    src: new Float64Array(n * 2),
    dst: new Float64Array(n * 2),
    local: new Float64Array(n * 2),
    colours: undefined,
    last: '',
    head: '',
  };
}

const QUAD = Uint16Array.from([0, 1, 2, 0, 2, 3]);

type Placement = Pick<PhotoFramePose, 'angle' | 'dx' | 'dy'>;

/**
 * Texture coordinates of output points where the portrait is placed as the frame's head is
 * (rotated about the pivot, offset): place() undone, then into the portrait's [0, 1]². Outside the
 * portrait the clamped texture stretches its edge pixels, as the engine's frame shows them.
 */
function rigidUvs(
  s: Sized,
  portrait: Image32,
  p: Placement,
  positions: ArrayLike<number>,
  uvs: Float32Array,
): void {
  const { scale, left, top, pivot } = s.layout;
  const cos = Math.cos(p.angle);
  const sin = Math.sin(p.angle);
  for (let k = 0; k < uvs.length / 2; k++) {
    const x = positions[k * 2]! - p.dx - pivot[0];
    const y = positions[k * 2 + 1]! - p.dy - pivot[1];
    const rx = (pivot[0] + x * cos + y * sin) / scale;
    const ry = (pivot[1] - x * sin + y * cos) / scale;
    uvs[k * 2] = (rx - left / scale) / portrait.width;
    uvs[k * 2 + 1] = (ry - top / scale) / portrait.height;
  }
}

/** The whole canvas: the portrait placed as the frame's head is. */
function backgroundMesh(s: Sized, portrait: Image32, p: Placement): GlMesh {
  const { width, height } = s.layout;
  const positions = Float32Array.from([0, 0, width, 0, width, height, 0, height]);
  const uvs = new Float32Array(8);
  rigidUvs(s, portrait, p, positions, uvs);
  return { positions, uvs, indices: QUAD };
}

/** The rect [x, y, w, h] in output pixels, showing the whole mouth texture. */
function boxMesh(x: number, y: number, w: number, h: number): GlMesh {
  return {
    positions: Float32Array.from([x, y, x + w, y, x + w, y + h, x, y + h]),
    uvs: Float32Array.from([0, 0, 1, 0, 1, 1, 0, 1]),
    indices: QUAD,
  };
}

/** The mouth triangles the CPU warp would have drawn (a vertex moved relative to the head). */
function movedMouthTris(rig: PhotoRig, s: Sized, dx: number, dy: number): number[] {
  const moved = (v: number): boolean =>
    Math.abs(s.dst[v * 2]! - s.src[v * 2]! - dx) > 0.01 ||
    Math.abs(s.dst[v * 2 + 1]! - s.src[v * 2 + 1]! - dy) > 0.01;
  return rig.mouthTris.filter(
    (t) => moved(rig.tris[t * 3]!) || moved(rig.tris[t * 3 + 1]!) || moved(rig.tris[t * 3 + 2]!),
  );
}

/** One avatar on one canvas: the rig laid out at the canvas's size, drawn per frame. */
class PhotoGlRenderer implements BrowserRenderer {
  readonly #canvas: HTMLCanvasElement;
  #gl: PhotoGl;
  /** False after a restored context could not be set up again (draws nothing until the next). */
  #ready = true;
  readonly #portrait: Portrait;
  readonly #landmarks: Array<[number, number]>;
  readonly #inner = createInnerMouth();
  #sized: Sized | undefined;
  #closed = false;
  /** The mouth box's pixels (grown as needed). */
  #box = new Uint8ClampedArray(0);

  constructor(
    canvas: HTMLCanvasElement,
    gl: PhotoGl,
    portrait: Portrait,
    landmarks: Array<[number, number]>,
  ) {
    this.#canvas = canvas;
    this.#gl = gl;
    this.#portrait = portrait;
    this.#landmarks = landmarks;
  }

  resize(width: number, height: number): void {
    if (this.#closed) return;
    const w = Math.max(1, Math.round(width));
    const h = Math.max(1, Math.round(height));
    if (this.#canvas.width !== w) this.#canvas.width = w;
    if (this.#canvas.height !== h) this.#canvas.height = h;
    const s = this.#sized;
    if (s && s.layout.width === w && s.layout.height === h) {
      // (the canvas may have been cleared: the next frame is drawn whole)
      s.last = '';
      s.head = '';
      return;
    }
    const pixels = this.#portrait.pixels;
    this.#sized = sizedFor(photoLayout(this.#landmarks, pixels, w, h), pixels);
    this.#gl.viewport(w, h);
  }

  draw(frame: AnimationFrame): void {
    const s = this.#sized;
    // (no GL calls on a lost context: the SDK stops drawing on its event, which comes a little later)
    if (this.#closed || !s || !this.#ready || this.#gl.gl.isContextLost()) return;
    const { rig, scale, pivot, width, height } = s.layout;
    const p = photoFramePose(frame, width, height);
    // an unchanged pose (most idle frames) leaves the canvas showing the last one
    if (p.key === s.last) return;
    s.last = p.key;
    pose(rig, PHOTO_POSE, scale, p.angle, pivot, 0, 0, s.src);
    pose(rig, p.weights, scale, p.angle, pivot, p.dx, p.dy, s.dst);
    const colours = this.#coloursFor(s, p);
    // The triangles the modes move tile a region bounded by vertices that never move, so while
    // the head stays put the canvas (kept: preserveDrawingBuffer) needs that region redrawn
    // alone: the moving triangles, and the cavity as the background there. Else all of it.
    const head = `${p.step},${p.dx},${p.dy}`;
    if (head !== s.head) this.#gl.draw(backgroundMesh(s, this.#portrait.pixels, p), 'portrait');
    else {
      s.cavity.positions.set(s.dst);
      rigidUvs(s, this.#portrait.pixels, p, s.dst, s.cavity.uvs);
      this.#gl.draw(s.cavity, 'portrait');
    }
    s.head = head;
    s.mesh.positions.set(s.dst);
    this.#gl.draw(s.mesh, 'portrait');
    this.#drawMouth(s, frame, p, colours);
  }

  /**
   * The context is back with nothing in it: the program, buffers and both textures are made again
   * (the portrait from its bitmap, with its mipmaps), and the next frame is drawn whole.
   */
  restore(): void {
    if (this.#closed) return;
    const { gl, webgl2 } = this.#gl;
    try {
      this.#gl = createPhotoGl({ gl, webgl2 }, this.#portrait.bitmap);
      this.#ready = true;
    } catch (err) {
      // lost again meanwhile (its restored event comes later), or the GPU refuses the program
      if (!(err instanceof RendererUnavailable)) throw err;
      this.#ready = false;
      return;
    }
    const s = this.#sized;
    if (!s) return;
    this.#gl.viewport(s.layout.width, s.layout.height);
    s.last = '';
    s.head = '';
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#gl.close();
    this.#portrait.bitmap.close();
  }

  /** Reads the frame's mouth box back, shades the inner mouth there and draws it back. */
  #drawMouth(s: Sized, frame: AnimationFrame, p: PhotoFramePose, colours: MouthColours): void {
    const { rig, scale, pivot, width, height } = s.layout;
    const cb = cavityBox(rig, s.dst, width, height);
    if (!cb) return;
    // (room around the opening for the lips the shading samples beyond their inner edges)
    const pad = 4 + Math.ceil(0.04 * rig.mouthW * scale);
    const x0 = Math.max(0, cb[0] - pad);
    const y0 = Math.max(0, cb[1] - pad);
    const x1 = Math.min(width - 1, cb[2] + pad);
    const y1 = Math.min(height - 1, cb[3] + pad);
    if (x1 < x0 || y1 < y0) return;
    const w = x1 - x0 + 1;
    const h = y1 - y0 + 1;
    if (this.#box.length < w * h * 4) this.#box = new Uint8ClampedArray(w * h * 4);
    const out: Image32 = { px: this.#box.subarray(0, w * h * 4), width: w, height: h };
    this.#gl.read(x0, y0, w, h, out.px);
    // the cavity's pixels marked as the engine marks them (its warp then redraws the lips' edges)
    markTriangles(out, rig, rig.cavity, s.dst, 0, x0, y0);
    markTriangles(out, rig, movedMouthTris(rig, s, p.dx, p.dy), s.dst, 255, x0, y0);
    for (let i = 0; i < s.dst.length; i += 2) {
      s.local[i] = s.dst[i]! - x0;
      s.local[i + 1] = s.dst[i + 1]! - y0;
    }
    const { r, u } = faceAxes(rig, p.angle);
    this.#inner.draw({
      out,
      pos: s.local,
      rig,
      r,
      u,
      scale,
      stomion: place(rig.stomion, scale, p.angle, pivot, p.dx - x0, p.dy - y0),
      mouth: frame.mouth,
      colours,
      box: [cb[0] - x0, cb[1] - y0, cb[2] - x0, cb[3] - y0],
    });
    this.#gl.uploadMouth(out.px, w, h);
    this.#gl.draw(boxMesh(x0, y0, w, h), 'mouth');
  }

  /** The inner mouth's colours, from the portrait as the frame places it at rest (once per size). */
  #coloursFor(s: Sized, p: PhotoFramePose): MouthColours {
    if (s.colours) return s.colours;
    const { width, height } = s.layout;
    this.#gl.draw(backgroundMesh(s, this.#portrait.pixels, { angle: p.angle, dx: 0, dy: 0 }), 'portrait');
    const img: Image32 = { px: new Uint8ClampedArray(width * height * 4), width, height };
    this.#gl.read(0, 0, width, height, img.px);
    s.colours = mouthColours(img, s.src, s.layout.rig);
    return s.colours;
  }
}

/**
 * The photo avatar's renderer factory: rejects with RendererUnavailable('no-webgl') where the
 * page has neither WebGL 2 nor WebGL 1 (the SDK then shows video), 'pack-failed' for a pack
 * without 68 landmarks or a decodable portrait.
 */
export const photoRenderer: RendererFactory = async (pack, canvas) => {
  const context = openGl(canvas);
  const landmarks = landmarksOf(pack);
  const portrait = await decodePortrait(pack);
  return new PhotoGlRenderer(canvas, createPhotoGl(context, portrait.bitmap), portrait, landmarks);
};
