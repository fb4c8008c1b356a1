/** The real engine process pool (forked from dist/): what it logs when an engine process dies. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEnginePool } from './pool.js';
import type { EngineEvent, EngineHost } from './types.js';

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
