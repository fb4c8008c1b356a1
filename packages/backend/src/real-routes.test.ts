/**
 * The backend client's long-lived calls against the server's real routes (the app with the fake
 * engine, played by the manual clock, listening on loopback): `events()` reads the SSE route,
 * resumes with `Last-Event-ID` after the caller breaks off, and ends at `sessionEnded`; the
 * turns `streamText` posts come back as events in order; `audioStream()` plays a streamed turn
 * written in one piece larger than the server's largest frame, and the page's viewer token is
 * refused at the upgrade.
 */
import { afterEach, expect, it } from 'vitest';
import { AUDIO_STREAM_MAX_FRAME_BYTES, type SessionEvent } from '@mouthpiece/protocol';
import { MouthpieceError } from './errors.js';
import { createTestApp, type TestApp } from '../../server/src/testing/test-app.js';
import { createBackendClient } from './client.js';
import type { BackendSession } from './session.js';

let t: TestApp;
afterEach(async () => {
  await t.close();
});

async function start(): Promise<BackendSession> {
  t = await createTestApp({ msPerCharacter: 10, config: { idleTimeoutMs: 600_000 } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as { port: number };
  const client = createBackendClient({ baseUrl: `http://127.0.0.1:${port}`, credential: t.secret });
  return client.createSession({ visualConfig: { avatarId: 'amara' } });
}

/** Reads `n` events from the iterator, moving the manual clock while it waits. */
async function take(it: AsyncGenerator<{ id: string; event: SessionEvent }>, n: number) {
  const got: { id: string; event: SessionEvent }[] = [];
  const ticker = setInterval(() => t.clock.advance(100), 1);
  try {
    while (got.length < n) {
      const r = await it.next();
      if (r.done) break;
      got.push(r.value);
    }
  } finally {
    clearInterval(ticker);
  }
  return got;
}

it('events() reads the route: streamText turns in order, a resume after a break, then sessionEnded', async () => {
  const s = await start();
  // from id 0: every event the session kept, so none is missed before the first read connects
  const first = s.events({ lastEventId: '0' });
  async function* answer() {
    yield 'Hello there. ';
    yield 'How are ';
    yield 'you today?';
  }
  const spoken = await s.streamText(answer(), { turnIdPrefix: 'a' });
  expect(spoken.turns.map((x) => x.text)).toEqual(['Hello there.', 'How are you today?']);
  const got = await take(first, 4);
  const ids = spoken.turns.map((x) => x.turnId);
  expect(got.map((g) => g.event.type)).toEqual(['speakingStart', 'word', 'speakingEnd', 'speakingStart']);
  expect(got[0]!.event).toEqual({ type: 'speakingStart', turnId: ids[0] });
  expect(got[3]!.event).toEqual({ type: 'speakingStart', turnId: ids[1] });
  await first.return(undefined); // the caller breaks off after its fourth event

  // a new iterator from the last id it saw gets the rest, then the end, then stops
  const resumed = s.events({ lastEventId: got.at(-1)!.id });
  const rest = await take(resumed, 2);
  expect(rest.map((g) => g.event)).toEqual([
    { type: 'word', turnId: ids[1], text: 'How are you today?', offsetMs: 0 },
    { type: 'speakingEnd', turnId: ids[1], interrupted: false },
  ]);
  expect(Number(rest[0]!.id)).toBe(Number(got.at(-1)!.id) + 1);
  await s.end();
  const end = await take(resumed, 5);
  expect(end.map((g) => g.event)).toEqual([{ type: 'sessionEnded', reason: 'ended_by_client' }]);
});

it('audioStream() plays a turn written in one piece larger than a frame; a viewer token is refused', async () => {
  const s = await start();
  const audio = await s.audioStream();
  const started: string[] = [];
  audio.on('playbackStarted', (e) => started.push(e.turnId));
  audio.start({ sampleRate: 16000, turnId: 'pcm1' });
  // 40 s of a quiet tone at 16 kHz: 1.28 MB, more than one frame may carry
  const samples = new Int16Array(16000 * 40).map((_, i) => Math.round(2000 * Math.sin(i / 6)));
  expect(samples.byteLength).toBeGreaterThan(AUDIO_STREAM_MAX_FRAME_BYTES);
  const ticker = setInterval(() => t.clock.advance(100), 1);
  try {
    await audio.write(samples);
    const finished = audio.finished('pcm1');
    audio.end();
    expect(await finished).toEqual({
      type: 'playbackFinished',
      turnId: 'pcm1',
      interrupted: false,
      playedMs: 40_000,
    });
  } finally {
    clearInterval(ticker);
  }
  expect(started).toEqual(['pcm1']);
  await audio.close();

  const page = createBackendClient({
    baseUrl: `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`,
  }).session({ sessionId: s.sessionId, token: s.viewerToken! });
  const refused = await page.audioStream().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(refused).toBeInstanceOf(MouthpieceError);
  expect(refused).toMatchObject({ status: 403, code: 'FORBIDDEN' });
});
