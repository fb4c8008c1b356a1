/**
 * Finds faces and their 68 landmarks in an RGBA image for the photo import, with face-api's SSD
 * detector (loaded by face-api.ts, the one loader). A detection takes about a second of CPU, so it
 * runs in a worker thread (face-detector-worker.ts), never on an event loop that serves requests
 * or frames.
 */
import { detectFacesSsd, type DetectedFace } from './face-api.js';

export type { DetectedFace } from './face-api.js';

/** Every face scoring at least MIN_FACE_SCORE in an RGBA image, best first. */
export async function detectFacesHere(
  rgba: Uint8Array,
  width: number,
  height: number,
): Promise<DetectedFace[]> {
  const rgb = new Int32Array(width * height * 3);
  for (let i = 0, j = 0; i < rgba.length; i += 4) {
    rgb[j++] = rgba[i]!;
    rgb[j++] = rgba[i + 1]!;
    rgb[j++] = rgba[i + 2]!;
  }
  return detectFacesSsd(rgb, width, height, 20);
}
