/**
 * Face finding for the video import, on face-api (loaded by avatar/face-api.ts, the one loader).
 * Detect once, then track: the 68-point landmark net runs on a square crop around the previous
 * frame's face (≈ 13 ms), and the face detectors run only to start, to check now and then, and when tracking is lost (the tiny
 * detector ≈ 50 ms a frame, the SSD one the photo import uses ≈ 0.8 s). Runs in a worker thread
 * (video/tracker-worker.ts), never on an event loop that serves requests or frames.
 */
import {
  detectFacesSsd as detectSsd,
  loadFaceApi,
  MIN_FACE_SCORE,
  plainBox,
  type FaceBox,
  type DetectedFace,
} from '../avatar/face-api.js';

export type Landmarks = Array<[number, number]>;

export type FoundFace = DetectedFace;

/** An RGB frame (3 bytes a pixel, row-major). */
export interface RgbFrame {
  rgb: Uint8Array;
  width: number;
  height: number;
}

type Box = FaceBox;
interface Detection {
  score: number;
  box: Box;
}

/** Every face with its landmarks (SSD detector: slow, sure), best first. */
export function detectFacesSsd(frame: RgbFrame): Promise<FoundFace[]> {
  return detectSsd(Int32Array.from(frame.rgb), frame.width, frame.height, 10);
}

/** Face boxes only, with the tiny detector (fast: for checks while tracking). */
export async function detectBoxesTiny(frame: RgbFrame, inputSize = 320): Promise<Detection[]> {
  const api = await loadFaceApi();
  const input = api.tf.tensor3d(Int32Array.from(frame.rgb), [frame.height, frame.width, 3], 'int32');
  try {
    const found = await api.detectAllFaces(
      input,
      new api.TinyFaceDetectorOptions({ inputSize, scoreThreshold: MIN_FACE_SCORE }),
    );
    return found.map((d) => ({ score: d.score, box: plainBox(d.box) }));
  } finally {
    input.dispose();
  }
}

/** The side of the square the landmark net sees (it resizes to 112 itself). */
const CROP_PX = 160;

/**
 * Landmarks of the face inside `box` (a square around the face, in frame pixels): the box is
 * cut out and scaled to CROP_PX here, so the net's input is small whatever the frame's size.
 */
export async function landmarksIn(frame: RgbFrame, box: Box): Promise<Landmarks> {
  const api = await loadFaceApi();
  const crop = new Uint8Array(CROP_PX * CROP_PX * 3);
  const k = box.width / CROP_PX;
  const { rgb, width, height } = frame;
  for (let y = 0; y < CROP_PX; y++) {
    const sy = Math.min(height - 1, Math.max(0, Math.floor(box.y + (y + 0.5) * k)));
    for (let x = 0; x < CROP_PX; x++) {
      const sx = Math.min(width - 1, Math.max(0, Math.floor(box.x + (x + 0.5) * k)));
      const s = (sy * width + sx) * 3;
      const d = (y * CROP_PX + x) * 3;
      crop[d] = rgb[s]!;
      crop[d + 1] = rgb[s + 1]!;
      crop[d + 2] = rgb[s + 2]!;
    }
  }
  const input = api.tf.tensor3d(Int32Array.from(crop), [CROP_PX, CROP_PX, 3], 'int32');
  try {
    const lm = await api.nets.faceLandmark68Net.detectLandmarks(input);
    return lm.positions.map((p): [number, number] => [box.x + p.x * k, box.y + p.y * k]);
  } finally {
    input.dispose();
  }
}

/** The square box the landmark net is given for a face with these landmarks. */
export function trackingBox(lm: Landmarks): Box {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const [x, y] of lm) {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  // face-api's own crops are the detector box: about the landmarks' extent with brows at the top;
  // the landmarks' box grown by a quarter, centred a little lower, matches it
  const side = Math.max(x1 - x0, y1 - y0) * 1.25;
  const cx = (x0 + x1) / 2;
  const cy = (y0 + y1) / 2 - 0.02 * side;
  return { x: cx - side / 2, y: cy - side / 2, width: side, height: side };
}
