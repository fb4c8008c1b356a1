import { describe, expect, it } from 'vitest';
import { signalStopper } from './signal-stopper.js';

function harness(close: () => Promise<void>) {
  const h = { t: 0, out: '', err: '', exits: [] as number[], closes: 0 };
  const stop = signalStopper({
    close: () => {
      h.closes++;
      return close();
    },
    stdout: (s) => (h.out += s),
    stderr: (s) => (h.err += s),
    exit: (code) => void h.exits.push(code),
    now: () => h.t,
  });
  return { h, stop };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('stopping on SIGINT/SIGTERM', () => {
  it('closes once, then prints one stop line and exits 0', async () => {
    let done!: () => void;
    const { h, stop } = harness(() => new Promise<void>((r) => (done = r)));
    stop();
    await settle();
    expect(h.out).toBe(''); // not before the shutdown is over
    done();
    await settle();
    expect(h.closes).toBe(1);
    expect(h.out).toBe('Mouthpiece stopped.\n');
    expect(h.exits).toEqual([0]);
  });

  it('the same Ctrl-C delivered twice (terminal, then npm forwarding it) is one stop', async () => {
    let done!: () => void;
    const { h, stop } = harness(() => new Promise<void>((r) => (done = r)));
    stop();
    h.t = 300;
    stop();
    done();
    await settle();
    expect(h.closes).toBe(1);
    expect(h.out).toBe('Mouthpiece stopped.\n');
    expect(h.exits).toEqual([0]);
  });

  it('a second Ctrl-C later, while the shutdown hangs, stops at once', () => {
    const { h, stop } = harness(() => new Promise<void>(() => undefined));
    stop();
    h.t = 2500;
    stop();
    expect(h.out).toBe('Mouthpiece stopped (forced).\n');
    expect(h.exits).toEqual([130]);
  });

  it('a failed shutdown is reported, still ends with the stop line, and exits 1', async () => {
    const { h, stop } = harness(() => Promise.reject(new Error('disk gone')));
    stop();
    await settle();
    expect(h.err).toBe('mouthpiece: stopping failed: disk gone\n');
    expect(h.out).toBe('Mouthpiece stopped.\n');
    expect(h.exits).toEqual([1]);
  });
});
