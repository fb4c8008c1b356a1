import { describe, expect, it } from 'vitest';
import { ClientErrorCode } from '@mouthpiece/protocol';
import { MouthpieceError } from './errors.js';
import { connectWaitMs, Reconnector, type Timers } from './reconnector.js';

/** A manual clock: timers fire only when the test advances it. */
class ManualTimers implements Timers {
  #now = 0;
  #next = 1;
  readonly #due = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.#now;
  }
  set(fn: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#due.set(id, { at: this.#now + ms, fn });
    return id;
  }
  clear(handle: unknown): void {
    this.#due.delete(handle as number);
  }
  async advance(ms: number): Promise<void> {
    const until = this.#now + ms;
    for (let i = 0; i < 5; i++) await Promise.resolve();
    for (;;) {
      const [id, t] = [...this.#due.entries()].sort((a, b) => a[1].at - b[1].at)[0] ?? [];
      if (id === undefined || !t || t.at > until) break;
      this.#due.delete(id);
      this.#now = t.at;
      t.fn();
      for (let i = 0; i < 5; i++) await Promise.resolve();
    }
    this.#now = until;
  }
}

const unreachable = (): MouthpieceError =>
  new MouthpieceError(ClientErrorCode.RTC_CONNECTION_FAILED, 'network unreachable');

function setup(o: { deadline?: number; outcome: (n: number, signal: AbortSignal) => Promise<void> }) {
  const timers = new ManualTimers();
  const log: string[] = [];
  const attempts: number[] = [];
  const r = new Reconnector({
    attempt: (n, signal) => {
      attempts.push(timers.now());
      return o.outcome(n, signal);
    },
    deadline: () => o.deadline ?? 30_000,
    attempting: (n) => log.push(`attempt:${n}`),
    gone: (err) => log.push(`gone:${String(err.details?.status)}`),
    gaveUp: () => log.push('gaveUp'),
    timers,
    random: () => 1, // the ceiling of each back-off
  });
  return { r, timers, log, attempts };
}

describe('Reconnector', () => {
  it('tries at once, then backs off 0.5, 1, 2, 4, 4 s while attempts fail, and stops at the first success', async () => {
    const { r, timers, log, attempts } = setup({
      outcome: (n) => (n < 6 ? Promise.reject(unreachable()) : Promise.resolve()),
    });
    r.start();
    r.start(); // a second loss while trying changes nothing
    await timers.advance(20_000);
    expect(attempts).toEqual([0, 500, 1500, 3500, 7500, 11_500]);
    expect(log.at(-1)).toBe('attempt:6');
    expect(r.active).toBe(false);
  });

  it("after a nudge, attempts that still fail back off from the first step again (0.5 s), not from the outage's 4 s", async () => {
    const { r, timers, attempts } = setup({
      outcome: (n) => (n < 7 ? Promise.reject(unreachable()) : Promise.resolve()),
    });
    r.start();
    await timers.advance(10_000); // attempts at 0, 500, 1500, 3500, 7500: the next would wait 4 s
    r.nudge(); // the path answers again
    await timers.advance(0);
    await timers.advance(1000);
    expect(attempts).toEqual([0, 500, 1500, 3500, 7500, 10_000, 10_500]);
    expect(r.active).toBe(false);
  });

  it('a nudge (online, an answered keep-alive) tries at once; during an attempt, right after it', async () => {
    let fail = true;
    const { r, timers, attempts } = setup({
      outcome: () => (fail ? Promise.reject(unreachable()) : Promise.resolve()),
    });
    r.start();
    await timers.advance(2000); // attempts at 0, 500, 1500; the next is due at 3500
    r.nudge();
    await timers.advance(0);
    expect(attempts).toEqual([0, 500, 1500, 2000]);
    fail = false;
    r.nudge();
    await timers.advance(0);
    expect(attempts.at(-1)).toBe(2000 + 0);
    expect(r.active).toBe(false);
  });

  it('a nudge while an attempt hangs makes the next attempt follow it at once', async () => {
    let release!: (err: unknown) => void;
    const { r, timers, attempts } = setup({
      outcome: (n) =>
        n === 1 ? new Promise<void>((_, reject) => (release = reject)) : Promise.reject(unreachable()),
    });
    r.start();
    await timers.advance(0);
    r.nudge();
    await timers.advance(3000);
    release(unreachable());
    await timers.advance(0);
    expect(attempts).toEqual([0, 3000]);
  });

  it('a stale nudge (the network was down until now) abandons the attempt under way and tries again at once', async () => {
    const aborted: number[] = [];
    const { r, timers, attempts } = setup({
      outcome: (n, signal) =>
        n === 1
          ? new Promise<void>((_, reject) =>
              signal.addEventListener('abort', () => {
                aborted.push(timers.now());
                reject(unreachable());
              }),
            )
          : Promise.resolve(),
    });
    r.start();
    await timers.advance(3000);
    r.nudge(); // not stale: the attempt under way is left to finish
    await timers.advance(1000);
    expect(aborted).toEqual([]);
    r.nudge({ stale: true });
    await timers.advance(0);
    expect(aborted).toEqual([4000]);
    expect(attempts).toEqual([0, 4000]);
    expect(r.active).toBe(false);
  });

  it('404/410 ends it at once: gone, no more attempts', async () => {
    const { r, timers, log, attempts } = setup({
      outcome: () =>
        Promise.reject(
          new MouthpieceError(ClientErrorCode.SESSION_NOT_FOUND, 'Session ended', { status: 410 }),
        ),
    });
    r.start();
    await timers.advance(30_000);
    expect(attempts).toEqual([0]);
    expect(log).toEqual(['attempt:1', 'gone:410']);
  });

  it('gives up at the deadline when no attempt got through (an attempt never starts past it)', async () => {
    const { r, timers, log, attempts } = setup({
      deadline: 10_000,
      outcome: () => Promise.reject(unreachable()),
    });
    r.start();
    await timers.advance(60_000);
    expect(attempts).toEqual([0, 500, 1500, 3500, 7500]);
    expect(log.at(-1)).toBe('gaveUp');
    expect(log.filter((l) => l === 'gaveUp')).toHaveLength(1);
    expect(r.active).toBe(false);
  });

  it('stop() ends it: no attempt after', async () => {
    const { r, timers, attempts } = setup({ outcome: () => Promise.reject(unreachable()) });
    r.start();
    await timers.advance(600);
    r.stop();
    await timers.advance(60_000);
    expect(attempts).toEqual([0, 500]);
  });

  it('an attempt waits for ICE 4 × what the first connection took (2 s at least), doubling per miss, 10 s at most', () => {
    expect(connectWaitMs(50, 0)).toBe(2000);
    expect(connectWaitMs(50, 1)).toBe(4000);
    expect(connectWaitMs(50, 3)).toBe(10_000);
    expect(connectWaitMs(1500, 0)).toBe(6000);
    expect(connectWaitMs(undefined, 0)).toBe(10_000); // the first connection was never measured
  });
});
