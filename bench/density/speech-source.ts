/**
 * What the density benchmark's sessions speak (`--speech`): `espeak` (default) has every session
 * say two long paragraphs in an espeak voice, so the engine synthesises the speech itself (its
 * synthesis worker is then the largest cost of a client-rendered session: docs/design.md §13.8);
 * `audio` has every session speak an uploaded recording (say-audio, ~20 s of speech, twice), as an
 * app with its own or a provider's synthesis does, so what is measured is the session's media path
 * alone: decoding, resampling, lip-sync, Opus, the animation stream.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TestServer } from '../../e2e/harness/server.js';

export type Speech = 'espeak' | 'audio';
export const SPEECH: Speech = process.env['BENCH_SPEECH'] === 'audio' ? 'audio' : 'espeak';

const REPEATS = 12;
const GAP_SEC = 0.25;

let recording: { wav: Buffer; durationSec: number } | undefined;

/** The engine's 1.6 s speech fixture (22 050 Hz), twelve times with short pauses: a ~22 s WAV. */
function longRecording(): { wav: Buffer; durationSec: number } {
  if (recording) return recording;
  const file = readFileSync(
    fileURLToPath(new URL('../../packages/engine/test-fixtures/audio/speech-22k.wav', import.meta.url)),
  );
  const rate = file.readUInt32LE(24);
  let o = 12;
  while (o < file.length - 8 && file.toString('ascii', o, o + 4) !== 'data')
    o += 8 + file.readUInt32LE(o + 4);
  const pcm = file.subarray(o + 8, o + 8 + file.readUInt32LE(o + 4));
  const gap = Buffer.alloc(Math.round(GAP_SEC * rate) * 2);
  const data = Buffer.concat(Array.from({ length: REPEATS }, () => [pcm, gap]).flat());
  const header = Buffer.from(file.subarray(0, 44));
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  recording = { wav: Buffer.concat([header.subarray(0, 44), data]), durationSec: data.length / 2 / rate };
  return recording;
}

/** Starts a session speaking for well over the benchmark's window: two turns. */
export async function startSpeaking(
  server: TestServer,
  s: { sessionId: string; token: string },
  text: string,
): Promise<void> {
  for (let k = 0; k < 2; k++) {
    const path = `/v1/avatar-session/${s.sessionId}/${SPEECH === 'audio' ? 'say-audio' : 'say-text'}`;
    let r: Response;
    if (SPEECH === 'audio') {
      const { wav, durationSec } = longRecording();
      const form = new FormData();
      form.append('turnId', `t${k}`);
      form.append('duration', durationSec.toFixed(2));
      form.append('audio', new Blob([wav], { type: 'audio/wav' }), 'speech.wav');
      r = await server.api(path, { token: s.token, body: form });
    } else r = await server.api(path, { token: s.token, json: { text, turnId: `t${k}` } });
    if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  }
}
