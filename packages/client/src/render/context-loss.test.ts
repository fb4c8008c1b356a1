/**
 * ContextLossWatch: a WebGL loss is cancelled (so the browser restores it) and a 2D one is not
 * (cancelling it would refuse the restoration); lost → restored once each; a context not restored
 * within CONTEXT_RESTORE_MS of visible time is given up on, once; hidden time does not count.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CONTEXT_RESTORE_MS, ContextLossWatch, type PageVisibility } from './context-loss.js';

class FakePage extends EventTarget implements PageVisibility {
  visibilityState: DocumentVisibilityState = 'visible';
  show(state: DocumentVisibilityState): void {
    this.visibilityState = state;
    this.dispatchEvent(new Event('visibilitychange'));
  }
}

function setUp() {
  const canvas = new EventTarget();
  const page = new FakePage();
  const seen: string[] = [];
  const watch = new ContextLossWatch(
    canvas,
    {
      lost: () => seen.push('lost'),
      restored: () => seen.push('restored'),
      gaveUp: () => seen.push('gaveUp'),
    },
    page,
  );
  /** Dispatches a cancelable event on the canvas; true when a listener cancelled it. */
  const fire = (type: string): boolean => {
    const e = new Event(type, { cancelable: true });
    canvas.dispatchEvent(e);
    return e.defaultPrevented;
  };
  return { canvas, page, seen, watch, fire };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('ContextLossWatch', () => {
  it('cancels a WebGL loss (asking for the context back), and says lost then restored', () => {
    const { seen, watch, fire } = setUp();
    expect(fire('webglcontextlost')).toBe(true);
    expect(watch.lost).toBe(true);
    expect(fire('webglcontextlost')).toBe(true); // (a second loss event changes nothing)
    fire('webglcontextrestored');
    expect(watch.lost).toBe(false);
    fire('webglcontextrestored');
    vi.advanceTimersByTime(10 * CONTEXT_RESTORE_MS);
    expect(seen).toEqual(['lost', 'restored']);
  });

  it('leaves a 2D loss uncancelled (a cancelled one is never restored) and follows it the same way', () => {
    const { seen, watch, fire } = setUp();
    expect(fire('contextlost')).toBe(false);
    expect(watch.lost).toBe(true);
    fire('contextrestored');
    expect(seen).toEqual(['lost', 'restored']);
  });

  it('a restoration without a loss is ignored', () => {
    const { seen, fire } = setUp();
    fire('webglcontextrestored');
    fire('contextrestored');
    expect(seen).toEqual([]);
  });

  it('gives up once when the context is not back within the time, and stops listening', () => {
    const { seen, watch, fire } = setUp();
    fire('webglcontextlost');
    vi.advanceTimersByTime(CONTEXT_RESTORE_MS - 1);
    expect(seen).toEqual(['lost']);
    vi.advanceTimersByTime(1);
    expect(seen).toEqual(['lost', 'gaveUp']);
    fire('webglcontextrestored');
    fire('webglcontextlost');
    vi.advanceTimersByTime(10 * CONTEXT_RESTORE_MS);
    expect(seen).toEqual(['lost', 'gaveUp']);
    expect(watch.lost).toBe(true);
  });

  it('a context restored in time clears the deadline; a later loss has its own', () => {
    const { seen, fire } = setUp();
    fire('webglcontextlost');
    vi.advanceTimersByTime(CONTEXT_RESTORE_MS - 100);
    fire('webglcontextrestored');
    vi.advanceTimersByTime(CONTEXT_RESTORE_MS);
    expect(seen).toEqual(['lost', 'restored']);
    fire('webglcontextlost');
    vi.advanceTimersByTime(CONTEXT_RESTORE_MS);
    expect(seen).toEqual(['lost', 'restored', 'lost', 'gaveUp']);
  });

  it('counts only the time the page is shown: a hidden page waits, a shown one gets the whole time', () => {
    const { page, seen, fire } = setUp();
    page.show('hidden');
    fire('webglcontextlost'); // (a phone took a background tab's context)
    vi.advanceTimersByTime(10 * CONTEXT_RESTORE_MS);
    expect(seen).toEqual(['lost']);
    page.show('visible');
    vi.advanceTimersByTime(CONTEXT_RESTORE_MS - 1);
    page.show('hidden'); // (hidden again before the deadline: it stops)
    vi.advanceTimersByTime(10 * CONTEXT_RESTORE_MS);
    expect(seen).toEqual(['lost']);
    page.show('visible');
    fire('webglcontextrestored');
    vi.advanceTimersByTime(10 * CONTEXT_RESTORE_MS);
    expect(seen).toEqual(['lost', 'restored']);
    fire('webglcontextlost');
    page.show('visible'); // (shown again while shown: the deadline is not restarted)
    vi.advanceTimersByTime(CONTEXT_RESTORE_MS);
    expect(seen).toEqual(['lost', 'restored', 'lost', 'gaveUp']);
  });

  it('close() stops everything: no events, no deadline', () => {
    const { seen, watch, fire } = setUp();
    fire('webglcontextlost');
    watch.close();
    watch.close();
    vi.advanceTimersByTime(10 * CONTEXT_RESTORE_MS);
    expect(fire('webglcontextlost')).toBe(false);
    fire('webglcontextrestored');
    expect(seen).toEqual(['lost']);
  });
});
