// npm run bench:startup [-- --smoke]: runs startup.bench-run.ts under vitest inside a fresh test
// network namespace (root), or on the host network with MOUTHPIECE_E2E_HOST_NET=1.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const smoke = process.argv.includes('--smoke');
const env = { ...process.env, BENCH_SMOKE: smoke ? '1' : '0' };
const vitest = ['npx', 'vitest', 'run', '--config', 'bench/startup/vitest.config.ts', '--reporter=dot'];
let r;
if (process.getuid?.() === 0 && process.env.MOUTHPIECE_E2E_HOST_NET !== '1') {
  const ns = `mp-startup-${process.pid}`;
  spawnSync('scripts/netns.sh', ['up', ns], { cwd: root, stdio: 'inherit' });
  try {
    r = spawnSync('ip', ['netns', 'exec', ns, ...vitest], {
      cwd: root,
      env: { ...env, MOUTHPIECE_E2E_NETNS: '1' },
      encoding: 'utf8',
    });
  } finally {
    const pids = spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean);
    for (const p of pids) spawnSync('kill', ['-9', p]);
    spawnSync('scripts/netns.sh', ['down', ns], { cwd: root });
  }
} else {
  r = spawnSync(vitest[0], vitest.slice(1), { cwd: root, env, encoding: 'utf8' });
}
const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
const lines = out
  .split('\n')
  .filter((l) =>
    /^(startup benchmark|step|create|init-client|WHEP|first decoded|\{"bench")/.test(
      l.replace(/^stdout \| .*$/, ''),
    ),
  );
for (const l of lines) console.log(l);
if (!lines.some((l) => l.startsWith('{"bench"'))) {
  console.error(out.split('\n').slice(-40).join('\n'));
  process.exit(1);
}
