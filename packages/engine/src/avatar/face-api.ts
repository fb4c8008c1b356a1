/**
 * The one face-api loader, for the photo import (avatar/face-detector.ts) and the video import
 * (video/face-tracker.ts): face-api on TensorFlow.js's WebAssembly backend, with the SSD MobileNet v1
 * detector (slow, sure), the tiny detector (fast: checks while tracking) and the 68-point landmark
 * net. The weights and the .wasm ship inside the npm packages (`@vladmandic/face-api/model`,
 * `@tensorflow/tfjs-backend-wasm/dist`), so nothing is fetched. A detection takes up to a second
 * of CPU: callers run in worker threads, never on an event loop that serves requests or frames.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface FaceBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface DetectedFace {
  score: number;
  /** The detector's box, in the image's pixels. */
  box: FaceBox;
  /** 68 [x, y] landmarks in the image's pixels (iBUG 300-W order). */
  landmarks: Array<[number, number]>;
}

/** Faces the detectors are less sure of than this are not counted. */
export const MIN_FACE_SCORE = 0.5;

export interface Tensor {
  dispose(): void;
}
interface Detection {
  score: number;
  box: FaceBox;
}
interface Positions {
  positions: Array<{ x: number; y: number }>;
}
export interface FaceApi {
  tf: {
    setBackend(name: string): Promise<boolean>;
    ready(): Promise<void>;
    tensor3d(values: Int32Array, shape: [number, number, number], dtype: 'int32'): Tensor;
  };
  nets: Record<
    'ssdMobilenetv1' | 'tinyFaceDetector' | 'faceLandmark68Net',
    { loadFromDisk(dir: string): Promise<void> }
  > & {
    faceLandmark68Net: { detectLandmarks(input: Tensor): Promise<Positions> };
  };
  SsdMobilenetv1Options: new (o: { minConfidence: number; maxResults: number }) => unknown;
  TinyFaceDetectorOptions: new (o: { inputSize: number; scoreThreshold: number }) => unknown;
  detectAllFaces(
    input: Tensor,
    options: unknown,
  ): PromiseLike<Detection[]> & {
    withFaceLandmarks(): Promise<Array<{ detection: Detection; landmarks: Positions }>>;
  };
}

let loaded: Promise<FaceApi> | undefined;

/** face-api with its backend ready and its three nets loaded, once per thread. */
export function loadFaceApi(): Promise<FaceApi> {
  loaded ??= (async () => {
    const require = createRequire(import.meta.url);
    const api = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApi;
    await api.tf.setBackend('wasm');
    await api.tf.ready();
    const models = join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
    await api.nets.ssdMobilenetv1.loadFromDisk(models);
    await api.nets.tinyFaceDetector.loadFromDisk(models);
    await api.nets.faceLandmark68Net.loadFromDisk(models);
    return api;
  })();
  return loaded;
}

export function plainBox(b: FaceBox): FaceBox {
  return { x: b.x, y: b.y, width: b.width, height: b.height };
}

/** Every face scoring at least MIN_FACE_SCORE in an RGB image (3 values a pixel), with its landmarks, best first. */
export async function detectFacesSsd(
  rgb: Int32Array,
  width: number,
  height: number,
  maxResults: number,
): Promise<DetectedFace[]> {
  const api = await loadFaceApi();
  const input = api.tf.tensor3d(rgb, [height, width, 3], 'int32');
  try {
    const found = await api
      .detectAllFaces(input, new api.SsdMobilenetv1Options({ minConfidence: MIN_FACE_SCORE, maxResults }))
      .withFaceLandmarks();
    return found
      .map((f) => ({
        score: f.detection.score,
        box: plainBox(f.detection.box),
        landmarks: f.landmarks.positions.map((p): [number, number] => [p.x, p.y]),
      }))
      .sort((a, b) => b.score - a.score);
  } finally {
    input.dispose();
  }
}
