// npm run bench:record -- <name> [bench arguments]: runs one benchmark in full mode
// (`node bench/<name>/run.mjs [arguments]`, never --smoke) and keeps what it printed in
// bench/results/<name>[--<arguments>].json: the report lines, its JSON line, the date, the commit and
// the machine (cores, CPU, memory, the load average when the run started). Then run
// `npm run bench:doc` to write docs/benchmarks.md from every result file (scripts/bench-doc.mjs).
// Run benchmarks one at a time, on a machine as quiet as you can have: the load is recorded, not
// subtracted.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

const root = fileURLToPath(new URL('..', import.meta.url));
export const RESULTS_DIR = join(root, 'bench', 'results');

/** The result file's name: the bench, then its arguments (`density --render client` → density--render-client). */
export function resultName(name, args) {
  const slug = args
    .join('-')
    .replace(/[^A-Za-z0-9.,=-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
  return slug ? `${name}--${slug}` : name;
}

/** The last line of a bench's output that is its JSON line (`{"bench":…}`), and the lines before it. */
export function splitReport(stdout) {
  const lines = stdout.replace(/\r/g, '').split('\n');
  const at = lines.findLastIndex((l) => /^\{"bench":/.test(l));
  if (at < 0) return undefined;
  const report = lines
    .slice(0, at)
    .map((l) => l.trimEnd())
    .filter((l, i, all) => l.trim() !== '' || (i > 0 && all[i - 1].trim() !== ''));
  while (report.length && report[report.length - 1].trim() === '') report.pop();
  return { report, result: JSON.parse(lines[at]) };
}

function git(...args) {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

async function main() {
  const [name, ...args] = process.argv.slice(2);
  if (!name || !existsSync(join(root, 'bench', name, 'run.mjs'))) {
    console.error(
      `usage: npm run bench:record -- <name> [bench arguments]; <name> is a folder of bench/ with a run.mjs`,
    );
    process.exit(2);
  }
  if (args.includes('--smoke')) {
    console.error('bench:record keeps full runs only: drop --smoke');
    process.exit(2);
  }
  const cpu = cpus()[0];
  const machine = {
    cores: availableParallelism(),
    cpu: cpu?.model.trim() ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    node: process.version,
    loadAverageAtStart: loadavg().map((x) => +x.toFixed(2)),
  };
  const dirty = git('status', '--porcelain', '--untracked-files=no');
  const commit = `${git('rev-parse', '--short=12', 'HEAD') ?? 'unknown'}${dirty ? ' (uncommitted changes)' : ''}`;
  const startedAt = new Date();
  console.error(
    `bench:record ${name} ${args.join(' ')}: load average ${machine.loadAverageAtStart.join(' ')}`,
  );
  const r = spawnSync(process.execPath, [join('bench', name, 'run.mjs'), ...args], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.stdout.write(r.stdout ?? '');
  const parsed = r.status === 0 ? splitReport(r.stdout ?? '') : undefined;
  if (!parsed) {
    console.error(
      `bench:record: ${name} failed (exit ${r.status}) or printed no JSON line; nothing recorded`,
    );
    process.exit(1);
  }
  const record = {
    bench: name,
    command: `npm run bench:${name}${args.length ? ` -- ${args.join(' ')}` : ''}`,
    date: startedAt.toISOString().replace(/\.\d+Z$/, 'Z'),
    minutes: +((Date.now() - startedAt.getTime()) / 60_000).toFixed(1),
    commit,
    machine,
    report: parsed.report,
    result: parsed.result,
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${resultName(name, args)}.json`);
  const options = (await prettier.resolveConfig(file)) ?? {};
  writeFileSync(file, await prettier.format(JSON.stringify(record), { ...options, filepath: file }));
  console.error(`bench:record: wrote ${file}; now npm run bench:doc`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
