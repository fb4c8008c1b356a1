/** The engine pool's warnings from its pings of engine processes (host/pool.ts). */
import type { EngineMediaStats } from '../contract/types.js';

/** Warns of what an engine process's media clock reports since its previous ping. */
export function warnMediaTrouble(
  log: { warn(fields: Record<string, unknown>, msg: string): void },
  before: EngineMediaStats | undefined,
  now: EngineMediaStats,
): void {
  const { pid, sessions } = now;
  const skipped = now.framesSkipped - (before?.framesSkipped ?? 0);
  if (skipped > 0)
    log.warn({ pid, skipped, sessions, maxLateMs: Math.round(now.maxLateMs) }, 'late frames skipped');
  // from the second ping on: a process's start is not a stall of its sessions
  const stalls = before ? now.stalls - before.stalls : 0;
  if (stalls > 0)
    log.warn({ pid, stalls, sessions, lateMs: Math.round(now.recentMaxLateMs) }, 'media ticks stalled');
}
