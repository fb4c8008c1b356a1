/**
 * Splits a stream of JSON objects as text arrives: one per line (ElevenLabs' streams), or simply
 * back to back. Returns the complete objects' texts and keeps the rest for the next chunk.
 */
export class JsonObjectSplitter {
  #buf = '';
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** Where the object being scanned starts in #buf, and how far #buf has been scanned. */
  #start = -1;
  #scanned = 0;

  push(text: string): string[] {
    this.#buf += text;
    const out: string[] = [];
    for (let i = this.#scanned; i < this.#buf.length; i++) {
      const c = this.#buf[i]!;
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (c === '\\') this.#escaped = true;
        else if (c === '"') this.#inString = false;
        continue;
      }
      if (c === '"') this.#inString = true;
      else if (c === '{') {
        if (this.#depth++ === 0) this.#start = i;
      } else if (c === '}' && this.#depth > 0 && --this.#depth === 0) {
        out.push(this.#buf.slice(this.#start, i + 1));
        this.#start = -1;
      } else if (this.#depth === 0 && !/\s/.test(c)) {
        // text outside any object: not a stream of JSON objects
        out.push(this.#buf.slice(i));
        this.#buf = '';
        this.#scanned = 0;
        return out;
      }
    }
    // keep only the unfinished object
    if (this.#start >= 0) {
      this.#buf = this.#buf.slice(this.#start);
      this.#scanned = this.#buf.length;
      this.#start = 0;
    } else {
      this.#buf = '';
      this.#scanned = 0;
    }
    return out;
  }

  /** What is left when the stream ends (an unfinished object), if anything. */
  end(): string {
    return this.#buf.trim();
  }
}
