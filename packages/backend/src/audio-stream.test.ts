/** audioStream() against the loopback stand-in of the audio WebSocket (testing/audio-standin.ts). */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createBackendClient } from './client.js';
import type { BackendSession } from './session.js';
import { audioStandin, type AudioStandin } from './testing/audio-standin.js';

let server: AudioStandin;
let session: BackendSession;

beforeEach(async () => {
  server = await audioStandin();
  session = createBackendClient({ baseUrl: server.url }).session({
    sessionId: server.sessionId,
    token: server.token,
  });
});
afterEach(() => server.close());

const pcm = (samples: number, value = 1000): Uint8Array => {
  const b = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) b.writeInt16LE(value, i * 2);
  return b;
};

it('streams a turn of PCM and reports its playback events', async () => {
  const audio = await session.audioStream();
  const events: string[] = [];
  audio.on('playbackStarted', (e) => events.push(`started ${e.turnId}`));
  const turnId = audio.start({ sampleRate: 16000, turnId: 'tts-1' });
  expect(turnId).toBe('tts-1');
  for (let i = 0; i < 9; i++) await audio.write(pcm(1600));
  await audio.write(new Int16Array(1600).fill(1000)); // samples as they come from a TTS
  const finished = audio.finished('tts-1');
  audio.end();
  expect(await finished).toEqual({
    type: 'playbackFinished',
    turnId: 'tts-1',
    interrupted: false,
    playedMs: 1000,
  });
  expect(events).toEqual(['started tts-1']);
  expect(server.turns).toMatchObject([{ turnId: 'tts-1', sampleRate: 16000, bytes: 32000, ended: true }]);
  expect(
    Buffer.concat(server.turns[0]!.pcm).equals(
      Buffer.concat(Array.from({ length: 10 }, () => Buffer.from(pcm(1600)))),
    ),
  ).toBe(true);
  await audio.close();
});

it('clear() interrupts the open turn; the server says it was interrupted', async () => {
  const audio = await session.audioStream();
  audio.start({ sampleRate: 24000, turnId: 'a' });
  await audio.write(pcm(2400));
  const finished = audio.finished('a');
  audio.clear();
  expect(await finished).toMatchObject({ turnId: 'a', interrupted: true });
  expect(audio.turnId).toBeUndefined();
  expect(server.clears).toBe(1);
  audio.start({ sampleRate: 24000, turnId: 'b' }); // a new turn may start at once
  await audio.close();
});

it('refuses misuse locally and passes the server errors on', async () => {
  const audio = await session.audioStream();
  await expect(audio.write(pcm(10))).rejects.toThrow(/start\(\) one first/);
  expect(() => audio.start({ sampleRate: 12345 as 16000 })).toThrow(RangeError);
  audio.start({ sampleRate: 16000, turnId: 'x' });
  expect(() => audio.start({ sampleRate: 16000 })).toThrow(/still open/);
  await audio.close();
  await expect(audio.write(pcm(10))).rejects.toMatchObject({ code: 'NETWORK' });
});

it('a wrong token is refused at the upgrade with the server code', async () => {
  const bad = createBackendClient({ baseUrl: server.url }).session({
    sessionId: server.sessionId,
    token: 'bad',
  });
  await expect(bad.audioStream()).rejects.toMatchObject({ status: 401, code: 'INVALID_TOKEN' });
});

it('write waits while the server does not read (backpressure), then every byte arrives in order', async () => {
  const audio = await session.audioStream({ highWaterMarkBytes: 64 * 1024 });
  audio.start({ sampleRate: 48000, turnId: 'long' });
  server.pause();
  const chunk = 256 * 1024;
  let accepted = 0;
  let stalled: Promise<void> | undefined;
  // write until a write does not resolve while nothing is read (the kernel's buffers are full)
  for (let i = 0; accepted < 64 * 1024 * 1024; i++) {
    const buf = Buffer.alloc(chunk, i % 251);
    const p = audio.write(buf);
    const done = await Promise.race([
      p.then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), 300)),
    ]);
    if (!done) {
      stalled = p;
      break;
    }
    accepted += chunk;
  }
  expect(stalled).toBeDefined();
  expect(accepted).toBeLessThan(64 * 1024 * 1024);
  server.resume();
  await stalled;
  const finished = audio.finished('long');
  audio.end();
  await finished;
  const got = Buffer.concat(server.turns[0]!.pcm);
  expect(got.length).toBe(accepted + chunk);
  for (let i = 0; i * chunk < got.length; i++) expect(got[i * chunk]).toBe(i % 251);
  await audio.close();
});
