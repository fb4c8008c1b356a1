/** The real engine process pool (forked from dist/): what it logs when an engine dies or stops, its restarts, and the ICE candidates it uses. */
import { createSocket } from 'node:dgram';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CandidatePolicy } from '../rtc/candidate-filter.js';
import { browserOffer } from '../testing/offers.js';
import { createEnginePool, pickWorker } from './pool.js';
import { ERROR_MESSAGE } from '@mouthpiece/protocol';
import type { EngineError, EngineEvent, EngineHost } from '../contract/types.js';

type Line = { level: string; fields: Record<string, unknown>; msg: string };
const lines: Line[] = [];
const capture = (level: string) => (fields: object, msg: string) =>
  lines.push({ level, fields: fields as Record<string, unknown>, msg });
let pool: EngineHost;

beforeAll(async () => {
  pool = await createEnginePool({
    processes: 1,
    logger: { info: capture('info'), warn: capture('warn'), error: capture('error') },
  });
}, 30_000);
afterAll(() => pool?.close());

const waitFor = async (pred: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 200 && !pred(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!pred()) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(lines)}`);
};

it('a killed engine process is one error line with its pid and the sessions it took, then a restart', async () => {
  const ready = lines.find((l) => l.msg === 'engine process ready');
  const pid = ready?.fields['pid'] as number;
  expect(pid).toBeGreaterThan(0);
  const events: EngineEvent[] = [];
  pool.onEvent((e) => events.push(e));
  for (const sessionId of ['s1', 's2'])
    await pool.createSession({ sessionId, avatarId: 'amara', voiceId: 'en-us-female', voiceSpeed: 1 });

  process.kill(pid, 'SIGKILL');
  await waitFor(() => lines.some((l) => l.msg === 'engine process restarted'), 'the restart');

  const died = lines.filter((l) => l.msg === 'engine process died');
  expect(died).toHaveLength(1);
  expect(died[0]).toMatchObject({ level: 'error', fields: { pid, signal: 'SIGKILL' } });
  expect([...(died[0]!.fields['sessions'] as string[])].sort()).toEqual(['s1', 's2']);
  expect(
    events
      .filter((e) => e.type === 'sessionFailed')
      .map((e) => e.sessionId)
      .sort(),
  ).toEqual(['s1', 's2']);
  expect(lines.find((l) => l.msg === 'engine process restarted')?.level).toBe('warn');
  // the new process serves new sessions
  await pool.createSession({ sessionId: 's3', avatarId: 'amara', voiceId: 'en-us-female', voiceSpeed: 1 });
  expect(await pool.sayText('s3', { turnId: 't', text: 'Hi.', isFinal: true })).toBe('queued');
}, 30_000);

it("the engine process checks a new session with the control plane's check (protocol session-choices)", async () => {
  const refused = (o: { avatarId: string; voiceId: string }) =>
    pool.createSession({ sessionId: `bad-${o.avatarId}-${o.voiceId}`, voiceSpeed: 1, ...o }).then(
      () => undefined,
      (err: unknown) => ({ code: (err as EngineError).code, message: (err as Error).message }),
    );
  expect(await refused({ avatarId: 'nobody', voiceId: 'en-us-female' })).toEqual({
    code: 'invalid_request',
    message: ERROR_MESSAGE.UNKNOWN_AVATAR,
  });
  expect(await refused({ avatarId: 'amara', voiceId: 'nobody' })).toEqual({
    code: 'invalid_request',
    message: ERROR_MESSAGE.UNKNOWN_VOICE,
  });
  // shaped like an ElevenLabs voice id, but ElevenLabs is not configured here
  expect(await refused({ avatarId: 'amara', voiceId: '21m00Tcm4TlvDq8ikWAM' })).toMatchObject({
    message: ERROR_MESSAGE.UNKNOWN_VOICE,
  });
}, 30_000);

it('restart back-off grows while an engine keeps dying and resets once it has run healthy', async () => {
  const own: Line[] = [];
  const log = (level: string) => (fields: object, msg: string) =>
    own.push({ level, fields: fields as Record<string, unknown>, msg });
  const p = await createEnginePool({
    processes: 1,
    healthyAfterMs: 1500,
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
  });
  try {
    const killAndRestart = async (): Promise<number> => {
      const pid = own.filter((l) => l.msg === 'engine process ready').at(-1)!.fields['pid'] as number;
      const before = own.filter((l) => l.msg === 'engine process restarted').length;
      process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 200; i++) {
        if (own.filter((l) => l.msg === 'engine process restarted').length > before) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      return own.filter((l) => l.msg === 'engine process restarting').at(-1)!.fields['delayMs'] as number;
    };
    await new Promise((r) => setTimeout(r, 1600)); // the first process has run healthy
    expect(await killAndRestart()).toBe(200);
    expect(await killAndRestart()).toBe(400); // died again at once: back off
    expect(await killAndRestart()).toBe(800);
    await new Promise((r) => setTimeout(r, 1600)); // healthy for longer than healthyAfterMs
    expect(await killAndRestart()).toBe(200);
  } finally {
    await p.close();
  }
}, 30_000);

it('an engine told to stop (SIGTERM, SIGINT) is one info line and no restart: stopping is not dying', async () => {
  const own: Line[] = [];
  const log = (level: string) => (fields: object, msg: string) =>
    own.push({ level, fields: fields as Record<string, unknown>, msg });
  const p = await createEnginePool({
    processes: 2,
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
  });
  try {
    const events: EngineEvent[] = [];
    p.onEvent((e) => events.push(e));
    await p.createSession({
      sessionId: 'on-a-stopping-engine',
      avatarId: 'amara',
      voiceId: 'en-us-female',
      voiceSpeed: 1,
    });
    const pids = own.filter((l) => l.msg === 'engine process ready').map((l) => l.fields['pid'] as number);
    expect(pids).toHaveLength(2);
    process.kill(pids[0]!, 'SIGTERM');
    process.kill(pids[1]!, 'SIGINT');
    for (let i = 0; i < 200 && own.filter((l) => l.msg === 'engine process stopped').length < 2; i++)
      await new Promise((r) => setTimeout(r, 25));
    // longer than the first restart delay (0.2 s): a restart would have been logged by now
    await new Promise((r) => setTimeout(r, 800));
    const stopped = own.filter((l) => l.msg === 'engine process stopped');
    expect(stopped.map((l) => [l.level, l.fields['pid']]).sort()).toEqual(
      pids.map((pid) => ['info', pid]).sort(),
    );
    expect(own.filter((l) => l.level !== 'info')).toEqual([]); // no died, restarting, restarted
    expect(p.stats().processes).toBe(0);
    // the session it held cannot go on: it still ends, so the server does not wait on it
    expect(events.filter((e) => e.type === 'sessionFailed').map((e) => e.sessionId)).toEqual([
      'on-a-stopping-engine',
    ]);
  } finally {
    await p.close();
  }
}, 30_000);

describe('ICE candidates a viewer chooses', () => {
  /** A UDP and a TCP listener on loopback, counting what the engine sends to them. */
  async function loopbackTargets() {
    const udp = createSocket('udp4');
    let stun = 0;
    udp.on('message', () => stun++);
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', () => r()));
    let connections = 0;
    const tcp = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', () => r()));
    const candidates = [
      `candidate:1 1 udp 2122260223 127.0.0.1 ${udp.address().port} typ host generation 0`,
      `candidate:2 1 tcp 1518280447 127.0.0.1 ${(tcp.address() as AddressInfo).port} typ host tcptype passive generation 0`,
    ];
    return {
      candidates,
      counts: () => ({ stun, connections }),
      close: () => (udp.close(), tcp.close()),
    };
  }

  async function offerTo(ice: CandidatePolicy | undefined) {
    const targets = await loopbackTargets();
    const p = await createEnginePool({ processes: 1, ...(ice ? { ice } : {}) });
    try {
      await p.createSession({ sessionId: 'ice', avatarId: 'amara', voiceId: 'en-us-female', voiceSpeed: 1 });
      await p.connectViewer('ice', {
        viewerId: 'v',
        offerSdp: browserOffer([[96, 'VP8']], targets.candidates),
        iceServers: [],
      });
      await new Promise((r) => setTimeout(r, 2500)); // ICE checks start at once and repeat
      return targets.counts();
    } finally {
      targets.close();
      await p.close();
    }
  }

  it('by default the engine sends nothing to loopback addresses an offer names, and opens no TCP', async () => {
    expect(await offerTo(undefined)).toEqual({ stun: 0, connections: 0 });
  }, 30_000);

  it('with the deny list off, the same offer does reach them (the test can see it)', async () => {
    const counts = await offerTo({ deny: [], allowTcp: true, relays: [] });
    expect(counts.stun + counts.connections).toBeGreaterThan(0);
  }, 30_000);
});

describe('placement', () => {
  const proc = (name: string, sessions: number) => ({ name, sessions: { size: sessions } });

  it('a new session goes to the process with the fewest sessions', () => {
    expect(pickWorker([proc('a', 3), proc('b', 1), proc('c', 2)], 0).name).toBe('b');
    expect(pickWorker([proc('a', 3), proc('b', 1), proc('c', 2)], 7).name).toBe('b');
  });

  it('sessions made one after another (each ended first) take every process in turn, not the first one', () => {
    const idle = [proc('a', 0), proc('b', 0), proc('c', 0)];
    expect([0, 1, 2, 3].map((turn) => pickWorker(idle, turn).name)).toEqual(['a', 'b', 'c', 'a']);
    expect([0, 1].map((turn) => pickWorker([proc('a', 1), proc('b', 0), proc('c', 0)], turn).name)).toEqual([
      'b',
      'c',
    ]);
  });
});
