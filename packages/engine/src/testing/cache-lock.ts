/**
 * One maker at a time for a file cache shared by test processes (talking clips, the real clip's
 * imported pack): a lock folder made atomically, kept fresh while its maker works; the others wait
 * for the result, or take over a lock that went stale (its maker died).
 */
import { statSync } from 'node:fs';
import { mkdir, rm, rmdir, utimes } from 'node:fs/promises';

const LOCK_STALE_MS = 5 * 60_000;

/** Waits while another process holds the lock; false when it went away without a result. */
async function waitForOther(lock: string, done: () => boolean): Promise<boolean> {
  for (;;) {
    if (done()) return true;
    let age: number;
    try {
      age = Date.now() - statSync(lock).mtimeMs;
    } catch {
      return done();
    }
    if (age > LOCK_STALE_MS) {
      await rm(lock, { recursive: true, force: true });
      return false;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * `cached()` when `done()` says the result is there (now or once another maker finishes), else
 * `make()` under the lock `lock` (a path: a folder is made there). `reuse` false: always make.
 */
export async function underCacheLock<T>(
  lock: string,
  done: () => boolean,
  cached: () => Promise<T>,
  make: () => Promise<T>,
  reuse = true,
): Promise<T> {
  if (reuse && done()) return cached();
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if ((await waitForOther(lock, done)) && reuse) return cached();
    }
  }
  // long work on busy cores: the lock stays fresh while this process works
  const alive = setInterval(() => void utimes(lock, new Date(), new Date()).catch(() => undefined), 30_000);
  alive.unref();
  try {
    return await make();
  } finally {
    clearInterval(alive);
    await rmdir(lock).catch(() => undefined);
  }
}
