/**
 * deploy/mouthpiece.service: systemd accepts it as written (`systemd-analyze verify` prints
 * nothing: an unknown or misspelt key is only a warning there, so any output fails the test), it
 * is hardened, and it starts the built CLI without building.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const UNIT = fileURLToPath(new URL('../../../deploy/mouthpiece.service', import.meta.url));
const text = readFileSync(UNIT, 'utf8');
/** The unit's settings as key → values (a key may repeat). */
const settings = new Map<string, string[]>();
for (const line of text.split('\n')) {
  const m = /^(\w+)=(.*)$/.exec(line);
  if (m) settings.set(m[1]!, [...(settings.get(m[1]!) ?? []), m[2]!]);
}

it('systemd-analyze verify accepts the unit without a warning', () => {
  const which = spawnSync('sh', ['-c', 'command -v systemd-analyze']);
  expect(which.status, 'systemd-analyze is missing: apt-get install systemd (.ci/run installs it)').toBe(0);
  const dir = mkdtempSync(join(tmpdir(), 'mp-unit-'));
  try {
    const copy = join(dir, 'mouthpiece.service');
    copyFileSync(UNIT, copy);
    const run = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
    // "not booted with systemd" lines come from the machine, not the unit
    const said = `${run.stdout}${run.stderr}`
      .split('\n')
      .filter((l) => l.trim() && !/booted with systemd|Failed to connect to bus/.test(l));
    expect(said).toEqual([]);
    expect(run.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('runs as its own user, writes only its data dir, and is hardened', () => {
  const one = (k: string) => settings.get(k)?.[0];
  expect(one('DynamicUser')).toBe('yes');
  expect(one('ProtectSystem')).toBe('strict');
  expect(one('StateDirectory')).toBe('mouthpiece');
  expect(settings.get('Environment')).toContain('MOUTHPIECE_DATA_DIR=/var/lib/mouthpiece');
  expect(one('ReadWritePaths')).toBe('/var/lib/mouthpiece');
  for (const k of ['NoNewPrivileges', 'PrivateTmp', 'ProtectHome', 'PrivateDevices', 'RestrictSUIDSGID'])
    expect(one(k), k).toBe('yes');
  expect(one('CapabilityBoundingSet')).toBe('CAP_NET_BIND_SERVICE');
});

it('starts the built CLI (no build, no npm) and stops with SIGTERM', () => {
  expect(settings.get('ExecStart')).toEqual([
    '/usr/bin/node /opt/mouthpiece/packages/server/dist/cli.js serve',
  ]);
  expect(settings.get('KillSignal')).toEqual(['SIGTERM']);
});
