import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hashSecret } from '../auth/credential-secret.js';
import { openSqliteStores } from '../storage/sqlite/index.js';
import { runCli } from './run.js';
import { parseDurationMs } from './durations.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function cli(argv: string[], dataDir: string) {
  let out = '';
  let err = '';
  const code = await runCli({
    argv,
    env: { MOUTHPIECE_DATA_DIR: dataDir, MOUTHPIECE_TURN: 'off' },
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
  });
  return { code, out, err };
}

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'mp-cli-'));
  dirs.push(d);
  return d;
}

describe('mouthpiece credentials', () => {
  it('create --json prints one object with the secret, stored only as a hash', async () => {
    const dir = dataDir();
    const r = await cli(
      ['credentials', 'create', '--name', 'acme', '--max-sessions', '3', '--expires-in', '30d', '--json'],
      dir,
    );
    expect(r.code).toBe(0);
    const o = JSON.parse(r.out);
    expect(Object.keys(o).sort()).toEqual([
      'expiresAt',
      'id',
      'maxSessions',
      'name',
      'permissions',
      'secret',
    ]);
    expect(o).toMatchObject({ name: 'acme', permissions: ['session:create'], maxSessions: 3 });
    expect(o.secret).toMatch(new RegExp(`^mp_${o.id}_[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(o.expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const stores = openSqliteStores(join(dir, 'mouthpiece.db'));
    const rec = stores.credentials.get(o.id)!;
    expect(rec.secretHash).toBe(hashSecret(o.secret));
    expect(JSON.stringify(rec)).not.toContain(o.secret);
    stores.close();
  });

  it('accepts permissions and plan flags, including an empty permission list', async () => {
    const dir = dataDir();
    const a = JSON.parse(
      (
        await cli(
          [
            'credentials',
            'create',
            '--name',
            'ops',
            '--permissions',
            'admin,session:create',
            '--rps',
            '0',
            '--json',
          ],
          dir,
        )
      ).out,
    );
    expect(a.permissions).toEqual(['admin', 'session:create']);
    const b = JSON.parse(
      (await cli(['credentials', 'create', '--name', 'none', '--permissions', '', '--json'], dir)).out,
    );
    expect(b.permissions).toEqual([]);
    const stores = openSqliteStores(join(dir, 'mouthpiece.db'));
    expect(stores.credentials.get(a.id)?.limits.requestsPerSecond).toBe(0);
    stores.close();
  });

  it('list prints no secrets; revoke marks it revoked; unknown id exits 2', async () => {
    const dir = dataDir();
    const o = JSON.parse((await cli(['credentials', 'create', '--name', 'acme', '--json'], dir)).out);
    const list = await cli(['credentials', 'list', '--json'], dir);
    expect(list.out).not.toContain(o.secret);
    expect(JSON.parse(list.out)).toEqual([
      expect.objectContaining({ id: o.id, name: 'acme', status: 'active' }),
    ]);
    expect((await cli(['credentials', 'revoke', o.id], dir)).code).toBe(0);
    expect(JSON.parse((await cli(['credentials', 'list', '--json'], dir)).out)[0].status).toBe('revoked');
    const missing = await cli(['credentials', 'revoke', 'nope'], dir);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('no credential nope');
  });

  it('usage errors exit 1 with a message', async () => {
    const dir = dataDir();
    for (const argv of [
      ['credentials', 'create'],
      ['credentials', 'create', '--name', 'x', '--permissions', 'root'],
      ['credentials', 'create', '--name', 'x', '--max-sessions', '0'],
      ['credentials', 'create', '--name', 'x', '--expires-in', 'soon'],
      ['credentials', 'frob'],
      ['credentials', 'create', '--name', 'x', '--bogus'],
      ['frobnicate'],
    ]) {
      const r = await cli(argv, dir);
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.err).toContain('mouthpiece:');
    }
  });

  it('parses durations with units only', () => {
    expect(parseDurationMs('30d')).toBe(30 * 86_400_000);
    expect(parseDurationMs('1.5h')).toBe(5_400_000);
    expect(parseDurationMs('90s')).toBe(90_000);
    expect(parseDurationMs('30m')).toBe(1_800_000);
    expect(parseDurationMs('250')).toBeUndefined(); // a bare number: 250 what?
    expect(parseDurationMs('2 hours')).toBeUndefined();
    expect(parseDurationMs('0s')).toBeUndefined();
    expect(parseDurationMs('soon')).toBeUndefined();
  });

  it('--max-duration 2 hours is an error naming the flag and the stray word, not 2 ms', async () => {
    const dir = dataDir();
    const stray = await cli(['credentials', 'create', '--name', 'x', '--max-duration', '2', 'hours'], dir);
    expect(stray.code).toBe(1);
    expect(stray.err).toContain(
      'mouthpiece: --max-duration: "2" is not a duration; use a number with a unit',
    );
    const words = await cli(['credentials', 'create', '--name', 'x', '--max-duration', '2 hours'], dir);
    expect(words.err).toContain('--max-duration: "2 hours" is not a duration');
    const extra = await cli(['credentials', 'create', '--name', 'x', '--max-duration', '2h', 'hours'], dir);
    expect(extra.code).toBe(1);
    expect(extra.err).toContain('unexpected argument "hours"');
    const ok = JSON.parse(
      (await cli(['credentials', 'create', '--name', 'x', '--max-duration', '2h', '--json'], dir)).out,
    );
    const stores = openSqliteStores(join(dir, 'mouthpiece.db'));
    expect(stores.credentials.get(ok.id)?.limits.maxSessionDurationMs).toBe(7_200_000);
    stores.close();
  });
});

describe('mouthpiece help and version', () => {
  it.each([
    [[], /^Usage: mouthpiece <command>/],
    [['--help'], /^Usage: mouthpiece <command>/],
    [['help'], /^Usage: mouthpiece <command>/],
    [['serve', '--help'], /^Usage: mouthpiece serve/],
    [['credentials'], /^Usage: mouthpiece credentials <create\|list\|revoke>/],
    [['credentials', '--help'], /^Usage: mouthpiece credentials <create\|list\|revoke>/],
    [
      ['credentials', 'create', '--help'],
      /^Usage: mouthpiece credentials create --name NAME[\s\S]*90s, 30m, 2h, 7d/,
    ],
    [['credentials', 'list', '-h'], /^Usage: mouthpiece credentials list/],
    [['credentials', 'revoke', '--help'], /^Usage: mouthpiece credentials revoke ID/],
  ] as Array<[string[], RegExp]>)(
    'mouthpiece %j prints its help and exits 0, creating no database',
    async (argv, text) => {
      const dir = dataDir();
      const r = await cli(argv, dir);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(text);
      expect(existsSync(join(dir, 'mouthpiece.db'))).toBe(false);
    },
  );

  it('--version prints the package version', async () => {
    const r = await cli(['--version'], dataDir());
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^mouthpiece \d+\.\d+\.\d+\n$/);
  });
});

describe('credentials list and revoke, for people', () => {
  it('list has a header row and aligned columns', async () => {
    const dir = dataDir();
    await cli(['credentials', 'create', '--name', 'acme', '--expires-in', '30d'], dir);
    await cli(['credentials', 'create', '--name', 'a-much-longer-name', '--permissions', 'admin'], dir);
    const lines = (await cli(['credentials', 'list'], dir)).out.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^ID +NAME +PERMISSIONS +STATUS +CREATED +EXPIRES$/);
    const col = lines[0]!.indexOf('STATUS');
    for (const l of lines.slice(1)) expect(l.slice(col)).toMatch(/^active /);
    expect(lines[1]).toMatch(/ never$|\d{4}-\d\d-\d\d \d\d:\d\d$/);
  });

  it('revoke takes the whole secret too, and revoking twice says it already was', async () => {
    const dir = dataDir();
    const o = JSON.parse((await cli(['credentials', 'create', '--name', 'acme', '--json'], dir)).out);
    const bySecret = await cli(['credentials', 'revoke', o.secret], dir);
    expect(bySecret.code).toBe(0);
    expect(bySecret.out).toContain(`Revoked ${o.id} (acme)`);
    const stores = openSqliteStores(join(dir, 'mouthpiece.db'));
    const at = stores.credentials.get(o.id)!.revokedAt;
    stores.close();
    const again = await cli(['credentials', 'revoke', o.id], dir);
    expect(again.code).toBe(0);
    expect(again.out).toContain(`Credential ${o.id} was already revoked at ${new Date(at!).toISOString()}`);
    const wrong = await cli(['credentials', 'revoke', `mp_${o.id}_${'x'.repeat(43)}`], dir);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain('pass the credential id');
  });
});
