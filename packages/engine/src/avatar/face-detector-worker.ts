/** Worker-thread entry: answers one `{ rgba, width, height }` message with the faces found. */
import { parentPort } from 'node:worker_threads';
import { detectFacesHere } from './face-detector.js';

parentPort?.on('message', (m: { rgba: Uint8Array; width: number; height: number }) => {
  detectFacesHere(m.rgba, m.width, m.height).then(
    (faces) => parentPort?.postMessage({ faces }),
    (err: unknown) => parentPort?.postMessage({ error: err instanceof Error ? err.message : String(err) }),
  );
});
