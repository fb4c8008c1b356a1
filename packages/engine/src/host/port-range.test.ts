/**
 * The engine's WebRTC ports (MOUTHPIECE_ENGINE_MIN_PORT..MAX_PORT): the real engine process pool
 * answers an offer with host candidates on ports of the range only.
 */
import { afterAll, expect, it } from 'vitest';
import { browserOffer } from '../testing/offers.js';
import { createEnginePool } from './pool.js';
import type { EngineHost } from '../contract/types.js';

let host: EngineHost | undefined;
afterAll(async () => {
  await host?.close();
});

const ports = (sdp: string): number[] =>
  sdp
    .split(/\r?\n/)
    .filter((l) => l.startsWith('a=candidate:'))
    .map((l) => Number(l.split(' ')[5]));

it("binds the engine's peers to ports of the configured range", async () => {
  const range = { min: 40_710, max: 40_719 };
  host = await createEnginePool({ processes: 1, portRange: range });
  const seen: number[] = [];
  for (const id of ['s1', 's2']) {
    await host.createSession({ sessionId: id, avatarId: 'amara', voiceId: 'en-us-female', voiceSpeed: 1 });
    const { answerSdp } = await host.connectViewer(id, {
      viewerId: `v-${id}`,
      offerSdp: browserOffer([[96, 'VP8']]),
      iceServers: [],
    });
    seen.push(...ports(answerSdp));
  }
  expect(seen.length).toBeGreaterThan(0);
  for (const p of seen) expect(p >= range.min && p <= range.max, `port ${p}`).toBe(true);
  expect(new Set(seen).size).toBeGreaterThan(1); // the second viewer took another port of the range
}, 60_000);
