/** Processes on this machine from /proc: the Chromium trees this process started, and a tree's CPU. */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { cpuMs } from './measure.js';

type ProcessTable = Map<number, { ppid: number; chromium: boolean }>;

/** pid → parent pid and whether it is a Chromium binary, for every process now. */
function processTable(): ProcessTable {
  const out: ProcessTable = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1]);
      let exe = '';
      try {
        exe = readlinkSync(`/proc/${name}/exe`);
      } catch {
        // a kernel thread or gone
      }
      out.set(Number(name), { ppid, chromium: /chrom/.test(exe) });
    } catch {
      // the process exited
    }
  }
  return out;
}

/** Whether `pid` is `ancestor` or below it. */
function under(table: ProcessTable, pid: number, ancestor: number): boolean {
  for (let p: number | undefined = pid; p !== undefined && p > 1; p = table.get(p)?.ppid)
    if (p === ancestor) return true;
  return false;
}

/** The Chromium roots this process started (others' browsers on the machine are not ours). */
export function chromiumRoots(): Set<number> {
  const table = processTable();
  return new Set(
    [...table]
      .filter(([pid, p]) => p.chromium && !table.get(p.ppid)?.chromium && under(table, pid, process.pid))
      .map(([pid]) => pid),
  );
}

/** CPU ms so far of each process in the tree under `root` (itself included). */
export function treeCpuMs(root: number): Map<number, number> {
  const table = processTable();
  const out = new Map<number, number>();
  for (const pid of table.keys())
    if (under(table, pid, root))
      try {
        out.set(pid, cpuMs(pid));
      } catch {
        // exited meanwhile
      }
  return out;
}

export const treeDeltaMs = (a: Map<number, number>, b: Map<number, number>): number =>
  [...b].reduce((sum, [pid, ms]) => sum + ms - (a.get(pid) ?? 0), 0);

/** The direct children of `pid` now. */
export function childrenOf(pid: number): number[] {
  return [...processTable()].filter(([, p]) => p.ppid === pid).map(([child]) => child);
}

/** What a long run watches of a process: resident memory, open descriptors, threads. */
export interface ProcessFigures {
  rssMb: number;
  fds: number;
  threads: number;
}

/** `pid`'s figures now (throws when it has exited). */
export function processFigures(pid: number): ProcessFigures {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return {
    rssMb: field('VmRSS') / 1024,
    fds: readdirSync(`/proc/${pid}/fd`).length,
    threads: field('Threads'),
  };
}
