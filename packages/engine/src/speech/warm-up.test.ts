import { describe, expect, it } from 'vitest';
import { WARM_UP_ROUNDS, WARM_UP_SENTENCES, warmUp } from './warm-up.js';

describe('warmUp', () => {
  it('says every sentence each round', async () => {
    const said: string[] = [];
    expect(await warmUp((t) => said.push(t))).toBe(WARM_UP_ROUNDS * WARM_UP_SENTENCES.length);
    expect(said.slice(0, WARM_UP_SENTENCES.length)).toEqual(WARM_UP_SENTENCES);
  });

  it('lets work queued meanwhile run between two sentences, not after all of them', async () => {
    const order: string[] = [];
    const done = warmUp((t) => order.push(t), 1);
    setImmediate(() => order.push('request'));
    await done;
    const at = order.indexOf('request');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(at).toBeLessThan(2);
  });

  it('stops quietly at the first failure', async () => {
    let calls = 0;
    const n = await warmUp(() => {
      if (++calls === 3) throw new Error('no voice');
    });
    expect(n).toBe(2);
    expect(calls).toBe(3);
  });
});
