/**
 * The longest this thread ran without letting its event loop turn, measured on the thread's own
 * CPU clock (Linux's /proc/thread-self/schedstat: nanoseconds the thread spent on a CPU): a 1 ms
 * timer chain reads it at every turn, and the largest step between two turns is the longest
 * synchronous stretch. Unlike the wall-clock gap between turns, time the OS gave other processes
 * (a busy machine) does not count, so a test may judge it; a media tick due during that stretch
 * waited at least this long.
 */
import { readFileSync } from 'node:fs';

const SCHEDSTAT = '/proc/thread-self/schedstat';

/** CPU time this thread has used, in ms. */
export function threadCpuMs(): number {
  let text: string;
  try {
    text = readFileSync(SCHEDSTAT, 'utf8');
  } catch {
    throw new Error(`${SCHEDSTAT} cannot be read: the thread's CPU clock needs Linux with schedstats`);
  }
  return Number(text.split(' ')[0]) / 1e6;
}

/** Runs `during` and answers its result with the longest synchronous stretch meanwhile (ms of CPU). */
export async function longestStretch<T>(during: () => Promise<T>): Promise<{ result: T; longestMs: number }> {
  let last = threadCpuMs();
  let longestMs = 0;
  let on = true;
  let timer: NodeJS.Timeout | undefined;
  const turn = (): void => {
    const now = threadCpuMs();
    longestMs = Math.max(longestMs, now - last);
    last = now;
    if (on) timer = setTimeout(turn, 1);
  };
  timer = setTimeout(turn, 1);
  try {
    const result = await during();
    await new Promise((r) => setTimeout(r, 5)); // the chain's next turn sees the end of the last stretch
    return { result, longestMs };
  } finally {
    on = false;
    clearTimeout(timer);
  }
}
