/**
 * The EngineHost contract, run against the test fake and the real engine process pool (forked
 * from dist/, with libwebrtc and the worker threads), so the fake cannot drift from the engine.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEngineHost } from '../testing/fake-engine-host.js';
import { browserOffer as offer } from '../testing/offers.js';
import { createEnginePool } from './pool.js';
import type { EngineHost, EngineSessionOptions } from './types.js';

const FIXTURE = new URL('../../test-fixtures/audio/', import.meta.url);

const hosts: Array<[string, () => Promise<EngineHost>]> = [
  ['FakeEngineHost', () => Promise.resolve(new FakeEngineHost())],
  ['engine process pool', () => createEnginePool({ processes: 1 })],
];

describe.each(hosts)('EngineHost contract: %s', (_name, make) => {
  let host: EngineHost;
  let n = 0;
  const session = async (over: Partial<EngineSessionOptions> = {}): Promise<string> => {
    const sessionId = `contract-${++n}`;
    await host.createSession({
      sessionId,
      avatarId: 'amara',
      voiceId: 'en-us-female',
      voiceSpeed: 1,
      ...over,
    });
    return sessionId;
  };

  beforeAll(async () => {
    host = await make();
  }, 30_000);
  afterAll(async () => {
    await host?.close();
  });

  it('lists avatars and voices, and its default voice is one of them', () => {
    const c = host.catalog();
    expect(c.avatars.map((a) => a.id)).toEqual(expect.arrayContaining(['amara', 'jonas', 'mei']));
    expect(c.voices.map((v) => v.id)).toContain(c.defaultVoiceId);
    expect(c.voices.map((v) => v.id)).toEqual(expect.arrayContaining(['en-us-female', 'en-us-male']));
  });

  it('queues text, refuses a chunk for a final turn, and discards chunks of an interrupted turn', async () => {
    const id = await session();
    expect(await host.sayText(id, { turnId: 't1', text: 'Hello there.', isFinal: true })).toBe('queued');
    expect(await host.sayText(id, { turnId: 't1', text: 'More.', isFinal: true })).toBe('turn_final');
    expect(await host.sayText(id, { turnId: 't2', text: 'Streaming', isFinal: false })).toBe('queued');
    await host.interrupt(id);
    expect(await host.sayText(id, { turnId: 't2', text: ' on.', isFinal: true })).toBe('discarded');
    await host.interrupt(id); // idle: still fine
  });

  it('decodes a WAV upload and refuses junk as invalid audio', async () => {
    const id = await session();
    const wav = new Uint8Array(readFileSync(new URL('speech-22k.wav', FIXTURE)));
    const ok = await host.sayAudio(id, { turnId: 'a1', audio: wav, declaredDurationSec: 1 });
    expect(ok.kind).toBe('queued');
    expect(ok.kind === 'queued' && ok.decodedDurationSec).toBeGreaterThan(0.5);
    const junk = new Uint8Array(4000).fill(0x41);
    expect((await host.sayAudio(id, { turnId: 'a2', audio: junk, declaredDurationSec: 1 })).kind).toBe(
      'invalid_audio',
    );
  });

  it.each([
    ['VP8', [[96, 'VP8']]],
    ['VP9', [[98, 'VP9']]],
    ['AV1', [[45, 'AV1']]],
  ] as Array<[string, Array<[number, string]>]>)('answers a %s-only offer', async (_codec, codecs) => {
    const id = await session();
    const { answerSdp } = await host.connectViewer(id, {
      viewerId: `v-${id}`,
      offerSdp: offer(codecs),
      iceServers: [],
    });
    expect(answerSdp.startsWith('v=0')).toBe(true);
    expect(answerSdp).toMatch(/^m=video /m);
    await host.disconnectViewer(id, `v-${id}`);
  });

  it('refuses an H.264-only offer as unsupported and a non-SDP body as invalid', async () => {
    const id = await session();
    await expect(
      host.connectViewer(id, { viewerId: 'v1', offerSdp: offer([[102, 'H264']]), iceServers: [] }),
    ).rejects.toMatchObject({ code: 'unsupported_offer' });
    await expect(
      host.connectViewer(id, { viewerId: 'v2', offerSdp: 'hello', iceServers: [] }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('rejects calls for unknown sessions, and closes sessions idempotently', async () => {
    await expect(host.sayText('nope', { turnId: 't', text: 'Hi.', isFinal: true })).rejects.toMatchObject({
      code: 'unknown_session',
    });
    const id = await session();
    await host.closeSession(id, 'ended_by_client');
    await host.closeSession(id, 'ended_by_client');
    await expect(host.interrupt(id)).rejects.toMatchObject({ code: 'unknown_session' });
    expect(host.stats().sessions).toBeGreaterThanOrEqual(0);
  });
});
