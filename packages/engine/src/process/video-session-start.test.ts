/**
 * A video-avatar session's start in the real engine process (forked from dist/): it waits for its
 * pack (render/video-pack-cache.ts), a pack that cannot be loaded refuses the session with the file
 * named and leaves the process serving, and a session closed while its pack loads never starts.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEnginePool } from '../host/pool.js';
import type { EngineError, EngineHost } from '../contract/types.js';
import { writeSyntheticVideoPack } from '../testing/synthetic-video-pack.js';
import { VIDEO_FILES } from '../video/pack.js';

type Line = { level: string; fields: Record<string, unknown>; msg: string };
const lines: Line[] = [];
const capture = (level: string) => (fields: object, msg: string) =>
  lines.push({ level, fields: fields as Record<string, unknown>, msg });
let root: string;
let pool: EngineHost;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mp-video-start-'));
  const talker = await writeSyntheticVideoPack(root, { id: 'talker', size: 256, baseFrames: 8 });
  cpSync(talker.dir, join(root, 'broken'), { recursive: true });
  writeFileSync(
    join(root, 'broken', 'avatar.json'),
    JSON.stringify({ ...talker.manifest, id: 'broken', name: 'Broken' }),
  );
  // a bigger pack at another size than the output's: many slices to load
  await writeSyntheticVideoPack(root, { id: 'big', size: 384, baseFrames: 60 });
  pool = await createEnginePool({
    processes: 1,
    avatarsDirs: [root],
    pingIntervalMs: 100,
    logger: { info: capture('info'), warn: capture('warn'), error: capture('error') },
  });
}, 60_000);
afterAll(async () => {
  await pool?.close();
  rmSync(root, { recursive: true, force: true });
});

const start = (sessionId: string, avatarId: string): Promise<string> =>
  pool.createSession({ sessionId, avatarId, voiceId: 'en-us-female', voiceSpeed: 1 }).then(
    () => 'started',
    (err: unknown) => `${(err as EngineError).code}: ${(err as Error).message}`,
  );

/** The engine's session count at a ping after now. */
async function engineSessions(): Promise<number> {
  const before = pool.stats().media?.[0]?.ticks ?? 0;
  for (let i = 0; i < 100; i++) {
    const m = pool.stats().media?.[0];
    if (m && m.ticks > before) return m.sessions;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no ping from the engine process');
}

it('a pack that cannot be loaded refuses the session, naming the file; the process serves on', async () => {
  const file = join(root, 'broken', VIDEO_FILES.base);
  const whole = readFileSync(file);
  truncateSync(file, 1000);
  const refused = await start('b1', 'broken');
  expect(refused).toContain(
    `internal: avatar broken: its video pack could not be loaded: ${file}: 1000 bytes`,
  );
  expect(refused).toContain('import the clip again');
  expect(lines.find((l) => l.msg === 'session start failed')).toMatchObject({
    level: 'error',
    fields: { sessionId: 'b1', avatarId: 'broken' },
  });
  expect(await start('v1', 'amara')).toBe('started');
  writeFileSync(file, whole); // repaired: the failed load was not remembered
  expect(await start('b2', 'broken')).toBe('started');
  expect(await start('t1', 'talker')).toBe('started');
  expect(await engineSessions()).toBe(3);
  for (const id of ['v1', 'b2', 't1']) await pool.closeSession(id, 'ended_by_client');
  expect(await engineSessions()).toBe(0);
}, 60_000);

it('a session closed while its pack loads never starts', async () => {
  const started = start('c1', 'big');
  await pool.closeSession('c1', 'ended_by_client'); // sent before the pack can have loaded
  expect(await started).toMatch(/^unknown_session: Engine session c1 was closed while it started/);
  expect(await engineSessions()).toBe(0);
  expect(await start('c2', 'big')).toBe('started'); // the pack itself was fine
  await pool.closeSession('c2', 'ended_by_client');
}, 60_000);
