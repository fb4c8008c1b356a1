/**
 * The WebGL side of the photo avatar (photo-gl.ts): one program that draws textured triangles
 * given in output pixels, the portrait as a mipmapped texture (trilinear: a minified portrait
 * does not alias), and a small texture for the inner mouth's box, drawn pixel for pixel.
 * WebGL 2 where the browser has it, else WebGL 1 (GLSL ES 1.00 runs on both).
 */
import { RendererUnavailable } from './types.js';

type GL = WebGLRenderingContext | WebGL2RenderingContext;

const VERTEX = `
attribute vec2 aPos;
attribute vec2 aUv;
uniform vec2 uSize;
varying vec2 vUv;
void main() {
  vUv = aUv;
  gl_Position = vec4(aPos.x / uSize.x * 2.0 - 1.0, 1.0 - aPos.y / uSize.y * 2.0, 0.0, 1.0);
}`;

const FRAGMENT = `
precision highp float;
uniform sampler2D uTex;
varying vec2 vUv;
void main() {
  gl_FragColor = vec4(texture2D(uTex, vUv).rgb, 1.0);
}`;

/** Triangles to draw: positions in output pixels and texture coordinates, interleaved or not. */
export interface GlMesh {
  positions: Float32Array;
  uvs: Float32Array;
  indices: Uint16Array;
}

/** The page's WebGL context with what the photo avatar draws through it. */
export interface PhotoGl {
  readonly gl: GL;
  readonly webgl2: boolean;
  /** Sets the viewport to the canvas's size. */
  viewport(width: number, height: number): void;
  /** Draws `mesh` textured by the portrait (`texture: 'portrait'`) or the mouth box. */
  draw(mesh: GlMesh, texture: 'portrait' | 'mouth', count?: number): void;
  /** The canvas's pixels in the box (x, y from the top-left), top row first, RGBA. */
  read(x: number, y: number, width: number, height: number, into: Uint8ClampedArray): void;
  /** Replaces the mouth box's texture. */
  uploadMouth(px: Uint8ClampedArray, width: number, height: number): void;
  close(): void;
}

/** A WebGL context on the canvas, or RendererUnavailable('no-webgl'). */
export function openGl(canvas: HTMLCanvasElement): { gl: GL; webgl2: boolean } {
  const attrs: WebGLContextAttributes = {
    alpha: false,
    antialias: false,
    depth: false,
    stencil: false,
    premultipliedAlpha: false,
    // (kept between frames: a frame whose head has not moved redraws only the mouth's region)
    preserveDrawingBuffer: true,
  };
  const gl2 = canvas.getContext('webgl2', attrs);
  if (gl2) return { gl: gl2, webgl2: true };
  const gl1 = canvas.getContext('webgl', attrs);
  if (gl1) return { gl: gl1, webgl2: false };
  throw new RendererUnavailable('no-webgl', 'This browser has no WebGL: the photo avatar is shown as video');
}

function shader(gl: GL, type: number, source: string): WebGLShader {
  const s = gl.createShader(type);
  if (!s) throw new RendererUnavailable('no-webgl', 'WebGL could not make a shader (context lost?)');
  gl.shaderSource(s, source);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS))
    throw new RendererUnavailable('no-webgl', `WebGL shader: ${gl.getShaderInfoLog(s) ?? 'failed'}`);
  return s;
}

function texture(gl: GL, filter: number): WebGLTexture {
  const t = gl.createTexture();
  if (!t) throw new RendererUnavailable('no-webgl', 'WebGL could not make a texture (context lost?)');
  gl.bindTexture(gl.TEXTURE_2D, t);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, filter);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, filter);
  return t;
}

const isPowerOfTwo = (n: number): boolean => (n & (n - 1)) === 0;

/**
 * The program and textures on an open context; `portrait` is uploaded once, edges clamped (the
 * frame around a portrait narrower than the canvas shows its edge pixels stretched, as the
 * engine's does) and mipmapped where the context allows it (WebGL 1: power-of-two sizes only).
 */
export function createPhotoGl(
  { gl, webgl2 }: { gl: GL; webgl2: boolean },
  portrait: TexImageSource & { width: number; height: number },
): PhotoGl {
  const program = gl.createProgram();
  if (!program) throw new RendererUnavailable('no-webgl', 'WebGL could not make a program (context lost?)');
  gl.attachShader(program, shader(gl, gl.VERTEX_SHADER, VERTEX));
  gl.attachShader(program, shader(gl, gl.FRAGMENT_SHADER, FRAGMENT));
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS))
    throw new RendererUnavailable('no-webgl', `WebGL program: ${gl.getProgramInfoLog(program) ?? 'failed'}`);
  gl.useProgram(program);
  const aPos = gl.getAttribLocation(program, 'aPos');
  const aUv = gl.getAttribLocation(program, 'aUv');
  const uSize = gl.getUniformLocation(program, 'uSize');
  const posBuf = gl.createBuffer();
  const uvBuf = gl.createBuffer();
  const idxBuf = gl.createBuffer();
  gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
  gl.pixelStorei(gl.PACK_ALIGNMENT, 1);
  const mipmaps = webgl2 || (isPowerOfTwo(portrait.width) && isPowerOfTwo(portrait.height));
  const portraitTex = texture(gl, gl.LINEAR);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, portrait);
  if (mipmaps) {
    gl.generateMipmap(gl.TEXTURE_2D);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR);
  }
  const mouthTex = texture(gl, gl.NEAREST);
  let rows = new Uint8Array(0);
  return {
    gl,
    webgl2,
    viewport(width, height) {
      gl.viewport(0, 0, width, height);
      gl.uniform2f(uSize, width, height);
    },
    draw(mesh, which, count = mesh.indices.length) {
      gl.bindTexture(gl.TEXTURE_2D, which === 'portrait' ? portraitTex : mouthTex);
      gl.bindBuffer(gl.ARRAY_BUFFER, posBuf);
      gl.bufferData(gl.ARRAY_BUFFER, mesh.positions, gl.STREAM_DRAW);
      gl.enableVertexAttribArray(aPos);
      gl.vertexAttribPointer(aPos, 2, gl.FLOAT, false, 0, 0);
      gl.bindBuffer(gl.ARRAY_BUFFER, uvBuf);
      gl.bufferData(gl.ARRAY_BUFFER, mesh.uvs, gl.STREAM_DRAW);
      gl.enableVertexAttribArray(aUv);
      gl.vertexAttribPointer(aUv, 2, gl.FLOAT, false, 0, 0);
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, idxBuf);
      gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, mesh.indices, gl.STREAM_DRAW);
      gl.drawElements(gl.TRIANGLES, count, gl.UNSIGNED_SHORT, 0);
    },
    read(x, y, width, height, into) {
      const canvasH = gl.drawingBufferHeight;
      if (rows.length < width * height * 4) rows = new Uint8Array(width * height * 4);
      gl.readPixels(x, canvasH - y - height, width, height, gl.RGBA, gl.UNSIGNED_BYTE, rows);
      // (WebGL's rows run bottom-up)
      const stride = width * 4;
      for (let r = 0; r < height; r++)
        into.set(rows.subarray((height - 1 - r) * stride, (height - r) * stride), r * stride);
    },
    uploadMouth(px, width, height) {
      gl.bindTexture(gl.TEXTURE_2D, mouthTex);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, width, height, 0, gl.RGBA, gl.UNSIGNED_BYTE, px);
    },
    close() {
      gl.deleteTexture(portraitTex);
      gl.deleteTexture(mouthTex);
      for (const b of [posBuf, uvBuf, idxBuf]) gl.deleteBuffer(b);
      gl.deleteProgram(program);
    },
  };
}
