import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hashSecret } from '../auth/credential-secret.js';
import { openSqliteStores } from '../storage/sqlite/index.js';
import { runCliCaptured } from '../testing/cli-run.js';
import { durationText, parseDurationMs, suggestDuration } from './durations.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const cli = runCliCaptured;

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
    const rec = (await stores.credentials.get(o.id))!;
    expect(rec.secretHash).toBe(hashSecret(o.secret));
    expect(JSON.stringify(rec)).not.toContain(o.secret);
    await stores.close();
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
    expect((await stores.credentials.get(a.id))?.limits.requestsPerSecond).toBe(0);
    await stores.close();
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

  it('--max-duration 2 hours is an error naming the flag and what was typed, not 2 ms', async () => {
    const dir = dataDir();
    // the shell splits it: --max-duration, 2, hours
    const split = await cli(['credentials', 'create', '--name', 'x', '--max-duration', '2', 'hours'], dir);
    expect(split.code).toBe(1);
    expect(split.err).toContain(
      'mouthpiece: --max-duration: "2 hours" is not a duration; use a number with a unit: 90s, 30m, 2h, 7d ("2 hours" is 2h)',
    );
    const quoted = await cli(['credentials', 'create', '--name', 'x', '--max-duration', '2 hours'], dir);
    expect(quoted.code).toBe(1);
    expect(quoted.err).toContain('--max-duration: "2 hours" is not a duration');
    const bare = await cli(['credentials', 'create', '--name', 'x', '--expires-in=90'], dir);
    expect(bare.code).toBe(1);
    expect(bare.err).toContain('--expires-in: "90" is not a duration; use a number with a unit');
    const unknown = await cli(['credentials', 'create', '--name', 'x', '--max-duration', '2y'], dir);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('--max-duration: "2y" is not a duration');
    const extra = await cli(['credentials', 'create', '--name', 'x', '--max-duration', '2h', 'hours'], dir);
    expect(extra.code).toBe(1);
    expect(extra.err).toContain('unexpected argument "hours"');
    const name = await cli(['credentials', 'create', '--name', 'my', 'demo'], dir);
    expect(name.code).toBe(1);
    expect(name.err).toContain('unexpected argument "demo" (a value with spaces needs quotes');
    expect(existsSync(join(dir, 'mouthpiece.db'))).toBe(false); // none of these stored anything
    const ok = JSON.parse(
      (await cli(['credentials', 'create', '--name', 'x', '--max-duration', '2h', '--json'], dir)).out,
    );
    const stores = openSqliteStores(join(dir, 'mouthpiece.db'));
    expect((await stores.credentials.get(ok.id))?.limits.maxSessionDurationMs).toBe(7_200_000);
    await stores.close();
  });

  it('suggests the accepted form of words people write for units', () => {
    expect(suggestDuration('2 hours')).toBe('2h');
    expect(suggestDuration('90 seconds')).toBe('90s');
    expect(suggestDuration('1.5 hours')).toBe('90m');
    expect(suggestDuration('1 week')).toBe('7d');
    expect(suggestDuration('2H')).toBe('2h');
    expect(suggestDuration('2 fortnights')).toBeUndefined();
    expect(durationText(1500)).toBe('1500ms');
  });

  it('refuses durations too long to keep: a session timer past 24.8 days fires at once', async () => {
    const dir = dataDir();
    const long = await cli(['credentials', 'create', '--name', 'x', '--max-duration', '30d'], dir);
    expect(long.code).toBe(1);
    expect(long.err).toContain('--max-duration: "30d" is too long; at most 24d');
    const never = await cli(['credentials', 'create', '--name', 'x', '--expires-in', '99999999999d'], dir);
    expect(never.code).toBe(1);
    expect(never.err).toContain('--expires-in: "99999999999d" is too long; at most 36500d');
    const ok = await cli(['credentials', 'create', '--name', 'x', '--max-duration', '24d', '--json'], dir);
    expect(ok.code).toBe(0);
  });

  it('create says the limits it stored, so a wrong duration shows at once', async () => {
    const r = await cli(
      ['credentials', 'create', '--name', 'acme', '--max-duration', '90m', '--max-sessions', '3'],
      dataDir(),
    );
    expect(r.code).toBe(0);
    expect(r.out).toContain('Up to 3 sessions at once, each at most 90m; expires never');
    expect(r.out).toMatch(/\n {2}mp_[A-Za-z0-9]{16}_[A-Za-z0-9_-]{43}\n/);
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
    [
      ['credentials', 'create', '--bogus', '--max-duration', '2', 'hours', '--help'],
      /^Usage: mouthpiece credentials create/,
    ],
    [['help', 'serve'], /^Usage: mouthpiece serve/],
    [['help', 'credentials'], /^Usage: mouthpiece credentials <create\|list\|revoke>/],
    [['help', 'credentials', 'create'], /^Usage: mouthpiece credentials create --name NAME/],
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
    for (const header of ['NAME', 'PERMISSIONS', 'STATUS', 'CREATED', 'EXPIRES']) {
      const col = lines[0]!.indexOf(header);
      for (const l of lines.slice(1)) expect(l.slice(col - 1, col + 1), `${header} in ${l}`).toMatch(/^ \S$/);
    }
    const status = lines[0]!.indexOf('STATUS');
    for (const l of lines.slice(1)) expect(l.slice(status)).toMatch(/^active /);
    expect(lines[1]).toMatch(
      / acme +session:create +active +\d{4}-\d\d-\d\d \d\d:\d\d +\d{4}-\d\d-\d\d \d\d:\d\d$/,
    );
    expect(lines[2]).toMatch(/ a-much-longer-name +admin +active +\d{4}-\d\d-\d\d \d\d:\d\d +never$/);
  });

  it('list and revoke name the data directory they looked in', async () => {
    const dir = dataDir();
    const empty = await cli(['credentials', 'list'], dir);
    expect(empty.out).toBe(
      `No credentials in ${dir} yet. Create one: mouthpiece credentials create --name NAME\n`,
    );
    const missing = await cli(['credentials', 'revoke', 'nope'], dir);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(`no credential nope in ${dir}`);
  });

  it('revoke takes the whole secret too (even pasted with KS), and revoking twice says it already was', async () => {
    const dir = dataDir();
    const o = JSON.parse((await cli(['credentials', 'create', '--name', 'acme', '--json'], dir)).out);
    const bySecret = await cli(['credentials', 'revoke', o.secret], dir, { now: () => 1_800_000_000_000 });
    expect(bySecret.code).toBe(0);
    expect(bySecret.out).toContain(`Revoked ${o.id} (acme)`);
    const again = await cli(['credentials', 'revoke', o.id], dir, { now: () => 1_900_000_000_000 });
    expect(again.code).toBe(0);
    expect(again.out).toBe(
      `Credential ${o.id} was already revoked at ${new Date(1_800_000_000_000).toISOString()}; nothing changed.\n`,
    );
    const pasted = await cli(['credentials', 'revoke', `KS ${o.secret}`, '--json'], dir);
    expect(pasted.code).toBe(0);
    expect(JSON.parse(pasted.out)).toMatchObject({ id: o.id, status: 'revoked' });
    const stores = openSqliteStores(join(dir, 'mouthpiece.db'));
    expect((await stores.credentials.get(o.id))!.revokedAt).toBe(1_800_000_000_000); // unchanged
    await stores.close();
  });

  it('revoke by a secret that is not this credential, or not a whole secret, changes nothing', async () => {
    const dir = dataDir();
    const o = JSON.parse((await cli(['credentials', 'create', '--name', 'acme', '--json'], dir)).out);
    const wrong = await cli(['credentials', 'revoke', `mp_${o.id}_${'x'.repeat(43)}`], dir);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain('that secret belongs to no credential in');
    expect(wrong.err).toContain('pass the credential id');
    const cut = await cli(['credentials', 'revoke', o.secret.slice(0, 30)], dir);
    expect(cut.code).toBe(1);
    expect(cut.err).toContain('that is not a whole secret (mp_<id>_<43 characters>); pass the credential id');
    const list = JSON.parse((await cli(['credentials', 'list', '--json'], dir)).out);
    expect(list[0].status).toBe('active');
  });
});

describe('mouthpiece serve', () => {
  it('a port in use says so and how to pick another, exit 1', async () => {
    const r = await cli(['serve'], dataDir(), {
      env: { PORT: '8123', MOUTHPIECE_TURN: 'off' },
      serve: () =>
        Promise.reject(
          Object.assign(new Error('listen EADDRINUSE: address already in use'), { code: 'EADDRINUSE' }),
        ),
    });
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'mouthpiece: port 8123 is in use (is Mouthpiece already running?); stop that, or start on another port: PORT=8124 npm start\n',
    );
  });

  it('passes the validated config to the server and exits 0 when it returns', async () => {
    const dir = dataDir();
    let port = 0;
    const r = await cli(['serve'], dir, {
      env: { PORT: '8125', MOUTHPIECE_DATA_DIR: dir, MOUTHPIECE_TURN: 'off' },
      serve: (config) => {
        port = config.port;
        return Promise.resolve();
      },
    });
    expect(r.code).toBe(0);
    expect(port).toBe(8125);
  });
});
