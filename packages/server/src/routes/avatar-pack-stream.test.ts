/**
 * A video avatar's frames are tens of megabytes: over a real socket the file is streamed with an
 * honest Content-Length (the bytes that arrive are the file's, all of them), conditional requests
 * answer 304 without a body, and concurrent first requests agree on the ETag.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AvatarPackResponse } from '@mouthpiece/protocol';
import { PACK_AVATARS, PACK_IDS, testPackDir, writeTestPacks } from '../testing/avatar-packs.js';
import { createTestApp, type TestApp } from '../testing/test-app.js';

let dataDir: string;
let t: TestApp;
let origin: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'mp-pack-stream-'));
  await writeTestPacks(dataDir, { videoSize: 512, videoFrames: 64, only: 'video' }); // base.i420: 25 MB
  t = await createTestApp({ config: { dataDir, idleTimeoutMs: 600_000 }, avatars: PACK_AVATARS });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
}, 180_000);
afterAll(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a video pack over a real socket', () => {
  it('streams each file whole, its Content-Length the file size; 304 and HEAD send no body', async () => {
    const s = await t.createSession({ visualConfig: { avatarId: PACK_IDS.video } });
    const headers = { authorization: `Bearer ${s.token}` };
    const base = `${origin}/v1/avatar-session/${s.sessionId}/avatar`;
    // two first requests at once: one hash, one ETag
    const [a, b] = await Promise.all([fetch(base, { headers }), fetch(base, { headers })]);
    expect(a.headers.get('etag')).toBe(b.headers.get('etag'));
    const { files } = ((await a.json()) as AvatarPackResponse).avatar;
    await b.arrayBuffer();
    const dir = testPackDir(dataDir, PACK_IDS.video);
    const frames = files.find((f) => f.role === 'base-frames')!;
    expect(frames.bytes).toBe(statSync(join(dir, frames.name)).size);
    expect(frames.bytes).toBeGreaterThan(20_000_000);
    for (const f of files) {
      const res = await fetch(`${origin}${f.url}`, { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-length')).toBe(String(f.bytes));
      expect(res.headers.get('transfer-encoding')).toBeNull();
      const hash = createHash('sha256');
      let received = 0;
      const reader = res.body!.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        hash.update(r.value);
        received += r.value.byteLength;
      }
      expect(received, f.name).toBe(f.bytes);
      expect(hash.digest('hex')).toBe(
        createHash('sha256')
          .update(readFileSync(join(dir, f.name)))
          .digest('hex'),
      );
      const again = await fetch(`${origin}${f.url}`, { headers: { ...headers, 'if-none-match': f.etag } });
      expect(again.status).toBe(304);
      expect((await again.arrayBuffer()).byteLength).toBe(0);
      const head = await fetch(`${origin}${f.url}`, { method: 'HEAD', headers });
      expect(head.headers.get('content-length')).toBe(String(f.bytes));
    }
  });

  it('a client that goes away mid-file: the file is closed, the server goes on serving', async () => {
    const s = await t.createSession({ visualConfig: { avatarId: PACK_IDS.video } });
    const path = `/v1/avatar-session/${s.sessionId}/avatar/base.i420`;
    const file = join(testPackDir(dataDir, PACK_IDS.video), 'base.i420');
    const { port } = new URL(origin);
    let openWhileSending = 0;
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () =>
        socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.token}\r\n\r\n`),
      );
      let got = 0;
      socket.on('data', (d: Buffer) => {
        if (got === 0) openWhileSending = openDescriptorsOf(file);
        got += d.length;
        if (got > 1_000_000) socket.destroy(); // gone after a megabyte
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    expect(openWhileSending).toBe(1);
    // the server's descriptor of the file is released (no leak per abandoned download)
    for (let i = 0; i < 100 && openDescriptorsOf(file) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(openDescriptorsOf(file)).toBe(0);
    const whole = await fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${s.token}` } });
    expect((await whole.arrayBuffer()).byteLength).toBe(Number(whole.headers.get('content-length')));
  });
});

/** How many of this process's descriptors are open on `file` (Linux /proc). */
function openDescriptorsOf(file: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  }).length;
}
