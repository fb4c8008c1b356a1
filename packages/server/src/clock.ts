/** Time, injected everywhere so expiry, idle timeouts and retention are tested with a manual clock. */
import type { Clock } from '@mouthpiece/protocol';

export type { Clock };

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};
