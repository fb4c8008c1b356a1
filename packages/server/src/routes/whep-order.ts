/**
 * The order of one page's WHEP offers. A page gives up an offer that went out into a network
 * outage and sends a new one once the network is back (packages/client/src/reconnector.ts). The
 * given-up request can still reach the server afterwards: its bytes sat in a TCP socket that sends
 * them when the path works again, and answered, that offer would replace the newer viewer (which
 * then never connects, or is told `replaced`). So the SDK numbers its offers (`order=<page>.<n>`
 * in the query of the whepUrl it POSTs to), and an offer of the same page numbered at or below the
 * newest one taken is refused before the engine sees it. Offers without a number (other players)
 * are taken as they come, and a page's offer always displaces another page's viewer.
 */

/** An offer's number as the SDK writes it: `<page>.<n>` (page: letters, digits, `-`, `_`). */
export function parseOfferOrder(value: string | undefined): { page: string; n: number } | undefined {
  const m = /^([\w-]{1,64})\.(\d{1,15})$/.exec(value ?? '');
  return m ? { page: m[1]!, n: Number(m[2]) } : undefined;
}

export class OfferOrder {
  readonly #newest = new Map<string, { page: string; n: number }>();

  /** Whether this offer may replace the session's viewer; if so it is now the newest. */
  take(sessionId: string, order: string | undefined): boolean {
    const o = parseOfferOrder(order);
    if (!o) return true;
    const newest = this.#newest.get(sessionId);
    if (newest && newest.page === o.page && o.n <= newest.n) return false;
    this.#newest.set(sessionId, o);
    return true;
  }

  /** The session ended. */
  forget(sessionId: string): void {
    this.#newest.delete(sessionId);
  }

  get size(): number {
    return this.#newest.size;
  }
}
