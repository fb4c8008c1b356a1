import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { defer, nextTurn, PIECE_GAP_MS } from './turns.js';

beforeEach(() => vi.useFakeTimers());
afterEach(async () => {
  await vi.runAllTimersAsync(); // the queue is the process's: drain it for the next test
  vi.useRealTimers();
});

it('runs one background piece per turn, in order, PIECE_GAP_MS apart, whoever queued them', () => {
  const ran: string[] = [];
  defer(() => ran.push('a1'));
  defer(() => ran.push('b1'));
  defer(() => ran.push('a2'));
  vi.advanceTimersByTime(PIECE_GAP_MS);
  expect(ran).toEqual(['a1']);
  vi.advanceTimersByTime(PIECE_GAP_MS);
  expect(ran).toEqual(['a1', 'b1']);
  vi.advanceTimersByTime(PIECE_GAP_MS);
  expect(ran).toEqual(['a1', 'b1', 'a2']);
});

it("a start's slices go before background pieces, one per turn, without the gap", async () => {
  const ran: string[] = [];
  const t0 = Date.now(); // faked
  defer(() => ran.push('warm'));
  const start = (async () => {
    await nextTurn();
    ran.push('slice 1');
    await nextTurn();
    ran.push('slice 2');
  })();
  // one turn: the timers pending now, not those their callbacks set
  await vi.runOnlyPendingTimersAsync();
  expect(ran).toEqual(['slice 1']);
  expect(Date.now() - t0).toBeLessThan(PIECE_GAP_MS);
  await vi.runOnlyPendingTimersAsync();
  expect(ran).toEqual(['slice 1', 'slice 2']);
  expect(Date.now() - t0).toBeLessThan(PIECE_GAP_MS);
  await start;
  await vi.advanceTimersByTimeAsync(PIECE_GAP_MS);
  expect(ran).toEqual(['slice 1', 'slice 2', 'warm']);
});

it('a piece that throws does not stop the queue', () => {
  const ran: string[] = [];
  defer(() => {
    throw new Error('broken picture');
  });
  defer(() => ran.push('next'));
  expect(() => vi.advanceTimersByTime(PIECE_GAP_MS)).toThrow('broken picture');
  vi.advanceTimersByTime(PIECE_GAP_MS);
  expect(ran).toEqual(['next']);
});
