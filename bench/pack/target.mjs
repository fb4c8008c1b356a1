// The server side of bench:pack: the real app (fake engine, memory stores) with a pack of every
// kind under a temp data dir, on a loopback port. Prints {port, sessions}; answers `rss` on IPC.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACK_AVATARS, PACK_IDS, writeTestPacks } from '../../packages/server/dist/testing/avatar-packs.js';
import { createTestApp } from '../../packages/server/dist/testing/test-app.js';

const { videoSize, videoFrames } = JSON.parse(process.argv[2] ?? '{}');
const dataDir = mkdtempSync(join(tmpdir(), 'mp-bench-pack-'));
await writeTestPacks(dataDir, { videoSize, videoFrames });
const t = await createTestApp({ config: { dataDir, idleTimeoutMs: 3_600_000 }, avatars: PACK_AVATARS });
await t.app.listen({ port: 0, host: '127.0.0.1' });
const sessions = {};
for (const [kind, avatarId] of Object.entries(PACK_IDS))
  sessions[kind] = await t.createSession({ visualConfig: { avatarId } });
process.on('message', (m) => {
  if (m === 'rss') process.send({ rss: process.memoryUsage().rss });
  if (m === 'stop')
    void t
      .close()
      .then(() => rmSync(dataDir, { recursive: true, force: true }))
      .then(() => process.exit(0));
});
process.stdout.write(`${JSON.stringify({ port: t.app.server.address().port, sessions })}\n`);
