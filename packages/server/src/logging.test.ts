import { Writable } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeEngineHost, ManualClock } from '@mouthpiece/engine/testing';
import { buildApp, loggerOptions } from './app.js';
import { testConfig } from './testing/test-config.js';
import { sessionCredentialInput } from './testing/credential-input.js';
import { openSqliteStores } from './storage/sqlite/index.js';
import { createCredential } from './auth/credential-records.js';
import { startServer } from './server.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** An app whose JSON log lines land in `lines`, with one credential at `rps`. */
async function loggedApp(rps: number) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const stores = openSqliteStores(':memory:');
  const { secret } = await createCredential(
    stores,
    sessionCredentialInput('log', { requestsPerSecond: rps }),
    Date.now(),
  );
  const clock = new ManualClock(Date.now());
  const app = await buildApp({
    config: testConfig({ logLevel: 'info' }),
    stores,
    engine: new FakeEngineHost({ clock }),
    clock,
    jwtSecret: 'x'.repeat(40),
    turn: { mode: 'off', host: 'localhost', ports: [], secret: '' },
    logger: false,
    loggerInstance: pino(loggerOptions('info') as pino.LoggerOptions, sink),
  });
  return { app, secret, clock, lines: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('logs', () => {
  it('never contain credentials, tokens, viewer tokens or spoken text above debug', async () => {
    const { app, secret, lines } = await loggedApp(0);
    const created = await app.inject({
      method: 'POST',
      url: '/v1/avatar-session',
      headers: { authorization: `KS ${secret}` },
      payload: { visualConfig: { avatarId: 'amara' } },
    });
    const { sessionId, token } = created.json();
    const init = (
      await app.inject({
        method: 'POST',
        url: `/v1/avatar-session/${sessionId}/init-client`,
        headers: { authorization: `Bearer ${token}` },
      })
    ).json();
    const vt = new URL(init.whepUrl).searchParams.get('vt')!;
    await app.inject({
      method: 'POST',
      url: `/v1/avatar-session/${sessionId}/say-text`,
      headers: { authorization: `Bearer ${token}` },
      payload: { text: 'the secret plan' },
    });
    await app.inject({
      method: 'POST',
      url: `/v1/avatar-session/${sessionId}/whep?vt=${vt}`,
      headers: { 'content-type': 'application/sdp' },
      payload: 'garbage',
    });
    await app.inject({
      method: 'POST',
      url: `/v1/avatar-session/${sessionId}/keep-alive`,
      headers: { authorization: 'Bearer not-a-token' },
    });
    await app.inject({
      method: 'POST',
      url: `/v1/avatar-session/${sessionId}/end`,
      headers: { authorization: `Bearer ${token}` },
    });
    await app.close();
    const all = lines()
      .map((l) => JSON.stringify(l))
      .join('\n');
    expect(all).toContain('session created');
    expect(all).toContain('session ended');
    for (const s of [secret, token, vt, 'the secret plan', 'not-a-token']) expect(all).not.toContain(s);
  });
});

describe('startServer', () => {
  it('marks sessions left active by a previous run as ended (server_restart) and keeps credentials', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mp-restart-'));
    dirs.push(dataDir);
    const stores = openSqliteStores(join(dataDir, 'mouthpiece.db'));
    const { record } = await createCredential(stores, sessionCredentialInput('keep'), Date.now());
    await stores.sessions.insert({
      id: 'AAAAAAAAAAAAAAAAAAAAAA',
      credentialId: record.id,
      avatarId: 'amara',
      voiceId: 'en-us-female',
      voiceSpeed: 1,
      viewerToken: 'v',
      status: 'active',
      createdAt: Date.now() - 1000,
      expiresAt: Date.now() + 60_000,
      endedAt: null,
      endReason: null,
    });
    await stores.close();
    const server = await startServer(testConfig({ dataDir, port: 0, host: '127.0.0.1' }), {
      engine: new FakeEngineHost(),
    });
    try {
      const res = await fetch(`${server.url}/readyz`);
      expect(res.status).toBe(200);
      expect(await server.app.ctx.stores.sessions.get('AAAAAAAAAAAAAAAAAAAAAA')).toMatchObject({
        status: 'ended',
        endReason: 'server_restart',
      });
      expect((await server.app.ctx.stores.credentials.get(record.id))?.name).toBe('keep');
    } finally {
      await server.close();
      await server.close();
    }
  });

  it('a burst over the rate limit logs one warn line with the count, not one per rejection', async () => {
    const { app, secret, clock, lines } = await loggedApp(1);
    const create = () =>
      app.inject({
        method: 'POST',
        url: '/v1/avatar-session',
        headers: { authorization: `KS ${secret}` },
        payload: { visualConfig: { avatarId: 'amara' } },
      });
    const codes = [];
    for (let i = 0; i < 20; i++) codes.push((await create()).statusCode);
    expect(codes.filter((c) => c === 429).length).toBeGreaterThan(10);
    const limited = lines().filter((l) => l['msg'] === 'rate limited');
    expect(limited).toHaveLength(1);
    expect(limited[0]).toMatchObject({ level: 40, scope: 'credential', rps: 1, rejected: 1 });
    clock.advance(11_000);
    for (let i = 0; i < 5; i++) await create();
    const again = lines().filter((l) => l['msg'] === 'rate limited');
    expect(again).toHaveLength(2);
    expect(Number(again[1]!['rejected'])).toBeGreaterThan(5); // the rejections in between, counted
    await app.close();
  });
});
