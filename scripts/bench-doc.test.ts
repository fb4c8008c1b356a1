import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// docs/benchmarks.md is generated from bench/results/ (bench-doc.mjs): the page and the recorded runs
// must agree, and the page must carry every run's figures as the bench printed them.
const root = fileURLToPath(new URL('..', import.meta.url));
const results = join(root, 'bench', 'results');
const tmp = mkdtempSync(join(tmpdir(), 'mp-bench-doc-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function benchDoc(...args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'bench-doc.mjs'), ...args], {
    cwd: root,
    encoding: 'utf8',
  });
  return { status: r.status, stderr: r.stderr };
}

describe('docs/benchmarks.md', () => {
  it('is what npm run bench:doc writes from bench/results/ (run it after npm run bench:record)', () => {
    const r = benchDoc('--check');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('holds every recorded run: its report lines, its JSON figures, its date, commit and load', () => {
    const page = readFileSync(join(root, 'docs', 'benchmarks.md'), 'utf8');
    const files = readdirSync(results).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const rec = JSON.parse(readFileSync(join(results, f), 'utf8'));
      for (const line of rec.report) expect(page).toContain(line.trimEnd());
      expect(page).toContain(`"bench": ${JSON.stringify(rec.result.bench)}`);
      expect(page).toContain(rec.date);
      expect(page).toContain(rec.commit);
      expect(page).toContain(rec.machine.loadAverageAtStart.join(' / '));
    }
  });

  it('--check fails on a page that differs from the results, and names the fix', () => {
    const stale = join(tmp, 'benchmarks.md');
    writeFileSync(stale, readFileSync(join(root, 'docs', 'benchmarks.md'), 'utf8').replace(/\d/, '9'));
    const r = benchDoc('--check', '--out', stale);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('npm run bench:doc');
  });
});
