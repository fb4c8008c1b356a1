// Runs one benchmark's *.bench-run.ts under vitest, inside a fresh test network namespace when root
// (docs/design.md §7.2), or on the host network with MOUTHPIECE_E2E_HOST_NET=1. The benchmark writes its
// report (a table, then one JSON line) to BENCH_OUT; this prints it, or the run's tail on failure.
//   runVitestBench('density', { smoke })
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Runs argv inside a fresh test network namespace when root (unless MOUTHPIECE_E2E_HOST_NET=1),
 * else directly; removes the namespace and anything left in it afterwards.
 */
export function runInTestNamespace(name, argv, env, opts = {}) {
  const spawnOpts = { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts };
  if (process.getuid?.() !== 0 || process.env.MOUTHPIECE_E2E_HOST_NET === '1')
    return spawnSync(argv[0], argv.slice(1), { ...spawnOpts, env });
  const ns = `mp-${name}-${process.pid}`;
  spawnSync('scripts/netns.sh', ['up', ns], { cwd: root, stdio: 'inherit' });
  try {
    return spawnSync('ip', ['netns', 'exec', ns, ...argv], {
      ...spawnOpts,
      env: { ...env, MOUTHPIECE_E2E_NETNS: '1' },
    });
  } finally {
    const pids = spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean);
    for (const p of pids) spawnSync('kill', ['-9', p]);
    spawnSync('scripts/netns.sh', ['down', ns], { cwd: root });
  }
}

export function runVitestBench(name, { smoke = process.argv.includes('--smoke'), extraEnv = {} } = {}) {
  const dir = mkdtempSync(join(tmpdir(), `mp-bench-${name}-`));
  const out = join(dir, 'report.txt');
  const env = { ...process.env, ...extraEnv, BENCH_SMOKE: smoke ? '1' : '0', BENCH_OUT: out };
  const vitest = [
    'npx',
    'vitest',
    'run',
    '--config',
    'bench/vitest.config.ts',
    `bench/${name}/`,
    '--reporter=dot',
  ];
  const r = runInTestNamespace(name, vitest, env);
  let report = '';
  try {
    report = readFileSync(out, 'utf8');
  } catch {
    // no report: the run failed before printing
  }
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(report);
  if (r.status !== 0 || !/^\{"bench"/m.test(report)) {
    console.error(`${r.stdout ?? ''}${r.stderr ?? ''}`.split('\n').slice(-60).join('\n'));
    process.exit(1);
  }
}
