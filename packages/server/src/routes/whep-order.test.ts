import { describe, expect, it } from 'vitest';
import { OfferOrder, parseOfferOrder } from './whep-order.js';

describe('OfferOrder', () => {
  it("refuses a page's offer numbered at or below its newest taken one; other pages and unnumbered offers pass", () => {
    const o = new OfferOrder();
    expect(o.take('s1', 'pageA.2')).toBe(true);
    expect(o.take('s1', 'pageA.1')).toBe(false); // abandoned, arriving late
    expect(o.take('s1', 'pageA.2')).toBe(false);
    expect(o.take('s1', 'pageA.3')).toBe(true);
    expect(o.take('s1', undefined)).toBe(true); // a WHEP player without numbers
    expect(o.take('s1', 'pageB.1')).toBe(true); // another tab takes over
    expect(o.take('s1', 'pageA.4')).toBe(true); // and the first one back
    expect(o.take('s2', 'pageA.1')).toBe(true); // per session
    o.forget('s1');
    expect(o.take('s1', 'pageA.1')).toBe(true);
  });

  it('reads only `<page>.<n>`', () => {
    expect(parseOfferOrder('Ab_c-9.12')).toEqual({ page: 'Ab_c-9', n: 12 });
    for (const bad of [
      undefined,
      '',
      'page',
      'page.',
      '.3',
      'pa ge.3',
      'page.3.4',
      'page.-1',
      `${'x'.repeat(65)}.1`,
    ])
      expect(parseOfferOrder(bad)).toBeUndefined();
  });
});
