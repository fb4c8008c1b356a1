/**
 * The Server-Sent Events wire format, read incrementally: lines end in CRLF, LF or CR; `field:
 * value` (one space after the colon dropped); a line starting with `:` is a comment (the
 * server's heartbeat); a blank line dispatches the message gathered so far. `id` is remembered
 * across messages (it is what `Last-Event-ID` sends back); `retry` sets the reconnection delay.
 */
export interface SseMessage {
  /** The last `id` seen so far (this message's or an earlier one's), '' when none. */
  lastEventId: string;
  event: string;
  data: string;
}

export class SseParser {
  #pending = '';
  #event = '';
  #data: string[] = [];
  #sawCr = false;
  lastEventId = '';
  /** The server's `retry` advice in ms, when it gave one. */
  retryMs: number | undefined;
  /** Comment lines seen (heartbeats). */
  comments = 0;

  constructor(lastEventId = '') {
    this.lastEventId = lastEventId;
  }

  /** Feeds decoded text; returns the messages it completed. */
  push(text: string): SseMessage[] {
    const out: SseMessage[] = [];
    let s = this.#pending + text;
    if (this.#sawCr && s.startsWith('\n')) s = s.slice(1); // the LF of a CRLF split across chunks
    this.#sawCr = false;
    let start = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (c !== '\n' && c !== '\r') continue;
      this.#line(s.slice(start, i), out);
      if (c === '\r') {
        if (i + 1 === s.length) this.#sawCr = true;
        else if (s[i + 1] === '\n') i++;
      }
      start = i + 1;
    }
    this.#pending = s.slice(start);
    return out;
  }

  /** The connection closed: a message without its blank line is dropped, as the format says. */
  reset(): void {
    this.#pending = '';
    this.#event = '';
    this.#data = [];
    this.#sawCr = false;
  }

  #line(line: string, out: SseMessage[]): void {
    if (line === '') {
      if (this.#data.length > 0)
        out.push({
          lastEventId: this.lastEventId,
          event: this.#event || 'message',
          data: this.#data.join('\n'),
        });
      this.#event = '';
      this.#data = [];
      return;
    }
    if (line.startsWith(':')) {
      this.comments++;
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.#event = value;
        break;
      case 'data':
        this.#data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
  }
}
