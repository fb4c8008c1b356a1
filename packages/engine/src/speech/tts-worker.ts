/** Worker thread: owns one espeak-ng instance; synthesizes requests in order. */
import { parentPort } from 'node:worker_threads';
import { Espeak } from './espeak.js';

interface Req {
  id: number;
  text: string;
  espeakVoice: string;
  speed: number;
}

const port = parentPort;
if (!port) throw new Error('tts-worker must run in a worker thread');
const ready = Espeak.load();
port.on('message', (req: Req) => {
  ready
    .then((espeak) => {
      const seg = espeak.synthesize(req.text, req.espeakVoice, req.speed);
      port.postMessage({ id: req.id, segment: seg }, [seg.pcm.buffer as ArrayBuffer]);
    })
    .catch((err: unknown) =>
      port.postMessage({ id: req.id, error: err instanceof Error ? err.message : String(err) }),
    );
});
