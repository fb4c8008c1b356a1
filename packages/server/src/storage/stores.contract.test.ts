/** One contract, two adapters: the memory stores (tests) and SQLite (the embedded default). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryStores } from './memory.js';
import type { CredentialRecord, SessionRecord, Stores } from './ports.js';
import { openSqliteStores } from './sqlite/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempFile(): string {
  const d = mkdtempSync(join(tmpdir(), 'mp-store-'));
  dirs.push(d);
  return join(d, 'db.sqlite');
}

const credential = (id: string, over: Partial<CredentialRecord> = {}): CredentialRecord => ({
  id,
  name: `name-${id}`,
  secretHash: 'ab'.repeat(32),
  permissions: ['session:create'],
  createdAt: 1000,
  expiresAt: null,
  revokedAt: null,
  limits: { maxSessions: 10, maxSessionDurationMs: 3_600_000, maxTextLength: 5000, requestsPerSecond: 20 },
  ...over,
});
const session = (id: string, over: Partial<SessionRecord> = {}): SessionRecord => ({
  id,
  credentialId: 'c1',
  avatarId: 'amara',
  voiceId: 'en-us-female',
  voiceSpeed: 1.25,
  viewerToken: `vt-${id}`,
  status: 'active',
  createdAt: 2000,
  expiresAt: 9000,
  endedAt: null,
  endReason: null,
  ...over,
});

const adapters: Array<[string, () => Stores]> = [
  ['memory', () => createMemoryStores()],
  ['sqlite', () => openSqliteStores(tempFile())],
];

for (const [name, open] of adapters) {
  describe(`${name} stores`, () => {
    it('credentials: insert, get, list, revoke once', () => {
      const s = open();
      s.credentials.insert(credential('c1', { permissions: ['session:create', 'admin'], expiresAt: 5000 }));
      s.credentials.insert(credential('c2', { createdAt: 1001 }));
      expect(s.credentials.get('c1')).toEqual(
        credential('c1', { permissions: ['session:create', 'admin'], expiresAt: 5000 }),
      );
      expect(s.credentials.get('nope')).toBeUndefined();
      expect(s.credentials.list().map((c) => c.id)).toEqual(['c1', 'c2']);
      const v0 = s.credentials.changeVersion();
      expect(s.credentials.revoke('c1', 7000)).toBe(true);
      expect(s.credentials.changeVersion()).not.toBe(v0);
      expect(s.credentials.revoke('c1', 8000)).toBe(true);
      expect(s.credentials.get('c1')?.revokedAt).toBe(7000);
      expect(s.credentials.revoke('nope', 1)).toBe(false);
      expect(() => s.credentials.insert(credential('c1'))).toThrow();
      s.close();
    });

    it('sessions: insert, markEnded once, listActive, endAllActive, purge', () => {
      const s = open();
      s.sessions.insert(session('s1'));
      s.sessions.insert(session('s2'));
      s.sessions.insert(session('s3'));
      expect(s.sessions.get('s1')).toEqual(session('s1'));
      expect(s.sessions.markEnded('s1', 'ended_by_client', 3000)).toBe(true);
      expect(s.sessions.markEnded('s1', 'idle_timeout', 4000)).toBe(false);
      expect(s.sessions.get('s1')).toMatchObject({
        status: 'ended',
        endReason: 'ended_by_client',
        endedAt: 3000,
      });
      expect(s.sessions.listActive().map((r) => r.id)).toEqual(['s2', 's3']);
      expect(s.sessions.endAllActive('server_restart', 5000)).toBe(2);
      expect(s.sessions.listActive()).toEqual([]);
      expect(s.sessions.purgeEndedBefore(4000)).toBe(1);
      expect(s.sessions.get('s1')).toBeUndefined();
      expect(s.sessions.get('s2')?.endReason).toBe('server_restart');
      s.close();
    });

    it('usage adds up per credential', () => {
      const s = open();
      s.usage.add('c1', { sessionsCreated: 1, charactersSpoken: 10 });
      s.usage.add('c1', { sessionSeconds: 2.5, audioSeconds: 1.5, charactersSpoken: 5 });
      s.usage.add('c2', { sessionsCreated: 2 });
      expect(s.usage.get('c1')).toEqual({
        sessionsCreated: 1,
        charactersSpoken: 15,
        sessionSeconds: 2.5,
        audioSeconds: 1.5,
      });
      expect(s.usage.get('none')).toEqual({
        sessionsCreated: 0,
        charactersSpoken: 0,
        sessionSeconds: 0,
        audioSeconds: 0,
      });
      expect(s.usage.all().map((u) => u.credentialId)).toEqual(['c1', 'c2']);
      s.close();
    });
  });
}

describe('sqlite persistence', () => {
  it('keeps credentials, usage and ended sessions across reopen', () => {
    const file = tempFile();
    const a = openSqliteStores(file);
    a.credentials.insert(credential('c1'));
    a.usage.add('c1', { charactersSpoken: 42 });
    a.sessions.insert(session('s1'));
    a.sessions.markEnded('s1', 'idle_timeout', 3000);
    a.close();
    const b = openSqliteStores(file);
    expect(b.credentials.get('c1')?.name).toBe('name-c1');
    expect(b.usage.get('c1').charactersSpoken).toBe(42);
    expect(b.sessions.get('s1')?.endReason).toBe('idle_timeout');
    b.close();
  });

  it('changeVersion moves when another connection revokes (the CLI case)', () => {
    const file = tempFile();
    const server = openSqliteStores(file);
    server.credentials.insert(credential('c1'));
    const v = server.credentials.changeVersion();
    const cli = openSqliteStores(file);
    cli.credentials.revoke('c1', 5000);
    cli.close();
    expect(server.credentials.changeVersion()).not.toBe(v);
    expect(server.credentials.get('c1')?.revokedAt).toBe(5000);
    server.close();
  });
});
