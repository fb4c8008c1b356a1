/**
 * Reads a Server-Sent Events response as a test sees it: messages (`id`, `event`, the parsed
 * session event) and comment lines, in order, waited for by count rather than by time.
 */
import { parseSessionEvent, type SessionEvent } from '@mouthpiece/protocol';

export interface SseMessage {
  id: number;
  type: string;
  event: SessionEvent | undefined;
}

export class SseReader {
  readonly messages: SseMessage[] = [];
  readonly comments: string[] = [];
  #buffer = '';
  #ended = false;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();

  constructor(readonly response: Response) {
    if (!response.body) throw new Error('the response has no body');
    this.#reader = response.body.getReader();
  }

  /** True once the server ended the stream. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Reads until `done()` holds; throws if the stream ends first. */
  async until(done: (r: SseReader) => boolean): Promise<void> {
    while (!done(this)) {
      if (this.#ended) throw new Error(`the stream ended; got ${JSON.stringify(this.messages)}`);
      await this.#read();
    }
  }

  /** Reads until `n` messages have come. */
  count(n: number): Promise<void> {
    return this.until((r) => r.messages.length >= n);
  }

  /** Reads to the end of the stream. */
  async toEnd(): Promise<void> {
    while (!this.#ended) await this.#read();
  }

  /** The session events received, without their ids. */
  events(): Array<SessionEvent | undefined> {
    return this.messages.map((m) => m.event);
  }

  cancel(): Promise<void> {
    return this.#reader.cancel().catch(() => undefined);
  }

  async #read(): Promise<void> {
    const r = await this.#reader.read();
    if (r.done) {
      this.#ended = true;
      return;
    }
    this.#buffer += this.#decoder.decode(r.value, { stream: true });
    let end: number;
    while ((end = this.#buffer.indexOf('\n\n')) >= 0) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      this.#parse(block);
    }
  }

  #parse(block: string): void {
    let id: number | undefined;
    let type = 'message';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
      else if (line.startsWith('id: ')) id = Number(line.slice(4));
      else if (line.startsWith('event: ')) type = line.slice(7);
      else if (line.startsWith('data: ')) data += line.slice(6);
    }
    if (id !== undefined) this.messages.push({ id, type, event: parseSessionEvent(type, data) });
  }
}
