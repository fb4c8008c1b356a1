/**
 * Finds faces and their 68 landmarks in an RGB image with face-api (SSD MobileNet v1 detector and
 * the 68-point landmark net) on TensorFlow.js's WebAssembly backend. The weights and the .wasm
 * ship inside the npm packages (`@vladmandic/face-api/model`, `@tensorflow/tfjs-backend-wasm/dist`),
 * so nothing is fetched. A detection takes about a second of CPU, so it runs in a worker thread
 * (face-detector-worker.ts), never on an event loop that serves requests or frames.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface DetectedFace {
  score: number;
  /** The detector's box, in the image's pixels. */
  box: { x: number; y: number; width: number; height: number };
  /** 68 [x, y] landmarks in the image's pixels (iBUG 300-W order). */
  landmarks: Array<[number, number]>;
}

/** Faces the detector is less sure of than this are not counted. */
export const MIN_FACE_SCORE = 0.5;

interface Tensor {
  dispose(): void;
}
interface FaceApi {
  tf: {
    setBackend(name: string): Promise<boolean>;
    ready(): Promise<void>;
    tensor3d(values: Int32Array, shape: [number, number, number], dtype: 'int32'): Tensor;
  };
  nets: Record<'ssdMobilenetv1' | 'faceLandmark68Net', { loadFromDisk(dir: string): Promise<void> }>;
  SsdMobilenetv1Options: new (o: { minConfidence: number; maxResults: number }) => unknown;
  detectAllFaces(
    input: Tensor,
    options: unknown,
  ): {
    withFaceLandmarks(): Promise<
      Array<{
        detection: { score: number; box: { x: number; y: number; width: number; height: number } };
        landmarks: { positions: Array<{ x: number; y: number }> };
      }>
    >;
  };
}

let loaded: Promise<FaceApi> | undefined;

function load(): Promise<FaceApi> {
  loaded ??= (async () => {
    const require = createRequire(import.meta.url);
    const api = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApi;
    await api.tf.setBackend('wasm');
    await api.tf.ready();
    const models = join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
    await api.nets.ssdMobilenetv1.loadFromDisk(models);
    await api.nets.faceLandmark68Net.loadFromDisk(models);
    return api;
  })();
  return loaded;
}

/** Every face scoring at least MIN_FACE_SCORE in an RGBA image, best first. */
export async function detectFacesHere(
  rgba: Uint8Array,
  width: number,
  height: number,
): Promise<DetectedFace[]> {
  const api = await load();
  const rgb = new Int32Array(width * height * 3);
  for (let i = 0, j = 0; i < rgba.length; i += 4) {
    rgb[j++] = rgba[i]!;
    rgb[j++] = rgba[i + 1]!;
    rgb[j++] = rgba[i + 2]!;
  }
  const input = api.tf.tensor3d(rgb, [height, width, 3], 'int32');
  try {
    const found = await api
      .detectAllFaces(input, new api.SsdMobilenetv1Options({ minConfidence: MIN_FACE_SCORE, maxResults: 20 }))
      .withFaceLandmarks();
    return found
      .map((f) => ({
        score: f.detection.score,
        box: {
          x: f.detection.box.x,
          y: f.detection.box.y,
          width: f.detection.box.width,
          height: f.detection.box.height,
        },
        landmarks: f.landmarks.positions.map((p): [number, number] => [p.x, p.y]),
      }))
      .sort((a, b) => b.score - a.score);
  } finally {
    input.dispose();
  }
}
