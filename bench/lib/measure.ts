/** Shared helpers of the vitest-run benchmarks: quantiles, process CPU and memory, the report sink. */
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';

export const smoke = process.env['BENCH_SMOKE'] === '1';

/** The p-quantile (0..1) of xs by nearest rank; NaN when empty. */
export function quantile(xs: number[], p: number): number {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
}

export function mean(xs: number[]): number {
  const f = xs.filter(Number.isFinite);
  return f.length ? f.reduce((a, b) => a + b, 0) / f.length : NaN;
}

export function stdev(xs: number[]): number {
  const f = xs.filter(Number.isFinite);
  const m = mean(f);
  return f.length > 1 ? Math.sqrt(f.reduce((a, b) => a + (b - m) ** 2, 0) / (f.length - 1)) : NaN;
}

/** CPU time (user + system) a process has used, in ms. */
export function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, USER_HZ = 100
}

export function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** Writes a report line where run-vitest-bench.mjs collects it (stdout when run by hand). */
export function report(line: string): void {
  const out = process.env['BENCH_OUT'];
  if (out) appendFileSync(out, `${line}\n`);
  else console.log(line);
}

export const fmt = (x: number, digits = 0): string => (Number.isFinite(x) ? x.toFixed(digits) : '–');

/** A row of right-aligned cells after a left-aligned label. */
export function row(label: string, cells: Array<string | number>, labelWidth = 38, width = 8): string {
  return label.padEnd(labelWidth) + cells.map((c) => String(c).padStart(width)).join('');
}

/**
 * CPU ms used so far by each thread of a process, summed by thread name (`comm`). Node names none
 * of its threads, so its main (JS) thread is told apart as `main`; `node` is then its workers
 * (worker threads such as the espeak synthesiser, V8's platform and libuv's pool).
 */
export function threadCpuMs(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[-_ ]?\d+$/, '');
      const name = tid === String(pid) ? 'main' : comm;
      const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      out.set(name, (out.get(name) ?? 0) + ((Number(f[11]) + Number(f[12])) * 1000) / 100);
    } catch {
      // the thread exited
    }
  }
  return out;
}

/** Per-thread-name CPU % of one core between two threadCpuMs() samples, largest first. */
export function threadShares(
  a: Map<string, number>,
  b: Map<string, number>,
  wallMs: number,
): Array<[string, number]> {
  return [...b]
    .map(([name, ms]): [string, number] => [name, ((ms - (a.get(name) ?? 0)) / wallMs) * 100])
    .filter(([, pct]) => pct >= 0.5)
    .sort((x, y) => y[1] - x[1]);
}

/** Machine-wide CPU counters (jiffies): busy (everything but idle and iowait) and steal. */
export function systemCpu(): { busy: number; steal: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3]! - f[4]!, steal: f[7] ?? 0, total };
}
