/**
 * Cuts streamed model output into speakable pieces: sentences, long clauses, lines, and code
 * blocks (kept whole, so a period inside code never cuts it). Tokens arrive in arbitrary pieces
 * ("Dr", ".", " Smith"), so a terminator is a boundary once the character after it is whitespace.
 * At the end of what has arrived, `!` `?` and a period after a word of two letters or more that is
 * no abbreviation end the sentence at once (a model sends the space with the next token, one
 * token later: 25 ms at 40 tokens/s, 100 ms at 10); a period after a number ("3." of "3.14"), an
 * initial or an abbreviation waits for the next token.
 */
export interface Segment {
  text: string;
  /** A fenced code block (``` or ~~~), fences included. */
  code: boolean;
}

export interface SplitterOptions {
  /** A `,` `;` or `:` followed by a space ends a clause once the piece is this long (default 80). */
  clauseMinChars?: number;
  /**
   * The same for the first piece (default 40): a long first sentence starts speaking at its first
   * comma past this length, since the first piece is what the listener waits for.
   */
  firstClauseMinChars?: number;
  /** A piece with no boundary is cut at its last space past this length (default 400). */
  maxChars?: number;
  /**
   * End a sentence as its terminator arrives (default true), not one token later. The price: a
   * bare domain streamed as "example" "." "com" is cut after "example.", and a closing quote or
   * bracket that arrives after the period is dropped.
   */
  eager?: boolean;
}

/** Words whose trailing period never ends a sentence (lower case, without the final period). */
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'mt',
  'vs',
  'e.g',
  'i.e',
  'cf',
  'fig',
  'approx',
  'dept',
  'inc',
  'ltd',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
  'u.s',
  'a.m',
  'p.m',
]);
const TERMINATORS = '.!?…';
/** Full-width terminators end a sentence with no space after them. */
const CJK_TERMINATORS = '。！？';
/** Characters that may close a sentence after its terminator. */
const CLOSERS = `"'”’)]*_`;
const CLAUSE = ',;:';
const FENCE = /^ {0,3}(```|~~~)/;

type Decision = { cut: number; skip: number } | 'more' | undefined;

export class SentenceSplitter {
  #buf = '';
  #inFence = false;
  readonly #clauseMinChars: number;
  readonly #firstClauseMinChars: number;
  /** Pieces given out so far. */
  #pieces = 0;
  readonly #maxChars: number;
  readonly #eager: boolean;
  /** The last cut was made before the character after it was known: closers that follow are its. */
  #cutEarly = false;

  constructor(opts: SplitterOptions = {}) {
    this.#clauseMinChars = opts.clauseMinChars ?? 80;
    this.#firstClauseMinChars = opts.firstClauseMinChars ?? Math.min(40, this.#clauseMinChars);
    this.#maxChars = opts.maxChars ?? 400;
    this.#eager = opts.eager ?? true;
  }

  /** Adds streamed text; returns the pieces it completed. */
  push(delta: string): Segment[] {
    this.#buf += delta;
    return this.#drain(false);
  }

  /** The stream ended: returns what is left as pieces. */
  end(): Segment[] {
    const out = this.#drain(true);
    const rest = this.#buf;
    this.#buf = '';
    if (rest.trim() !== '')
      out.push({ text: this.#inFence ? rest.trimEnd() : rest.trim(), code: this.#inFence });
    this.#inFence = false;
    return out;
  }

  #drain(final: boolean): Segment[] {
    const out: Segment[] = [];
    for (;;) {
      const d = this.#inFence ? this.#fenceEnd(final) : this.#boundary(final);
      if (d === undefined || d === 'more') return out;
      const text = this.#buf.slice(0, d.cut);
      const code = this.#inFence;
      this.#buf = this.#buf.slice(d.cut + d.skip);
      if (code) this.#inFence = false;
      else this.#buf = this.#buf.replace(/^[ \t]+/, '');
      if (text.trim() !== '') {
        out.push({ text: code ? text.trimEnd() : text.trim(), code });
        this.#pieces++;
      }
    }
  }

  /** The end of the open code block: the line after its closing fence. */
  #fenceEnd(final: boolean): Decision {
    const b = this.#buf;
    let lineStart = b.indexOf('\n') + 1; // the opening fence's line
    if (lineStart === 0) return final ? undefined : 'more';
    for (;;) {
      const nl = b.indexOf('\n', lineStart);
      const line = nl < 0 ? b.slice(lineStart) : b.slice(lineStart, nl);
      if (nl < 0 && !final) return 'more';
      if (FENCE.test(line) && line.trim().replace(/^(```|~~~)/, '') === '') {
        const cut = nl < 0 ? b.length : nl;
        return { cut, skip: nl < 0 ? 0 : 1 };
      }
      if (nl < 0) return undefined;
      lineStart = nl + 1;
    }
  }

  /** The next boundary in the buffer outside code, 'more' when the next character decides. */
  #boundary(final: boolean): Decision {
    const b = this.#buf;
    if (this.#cutEarly && b.length > 0) {
      // quotes or brackets closing the sentence already sent: dropped (a voice does not read them)
      const closers = /^[)\]"'”’*_]*/.exec(b)![0].length;
      if (closers === b.length && !final) return 'more';
      this.#cutEarly = false;
      if (closers > 0 && (closers === b.length || /\s/.test(b[closers]!))) return { cut: 0, skip: closers };
    }
    for (let i = 0; i < b.length; i++) {
      if (i === 0 || b[i - 1] === '\n') {
        const rest = b.slice(i);
        if (FENCE.test(rest)) {
          if (i > 0) return { cut: i, skip: 0 }; // the text before the fence first
          this.#inFence = true;
          return this.#fenceEnd(final);
        }
        // "`", "``" or indentation at a line start may yet become a fence
        if (!final && /^ {0,3}(`{1,2}|~{1,2})?$/.test(rest) && rest.length > 0) return 'more';
      }
      const c = b[i]!;
      if (c === '\n') return { cut: i, skip: 1 };
      if (CJK_TERMINATORS.includes(c)) return { cut: i + 1, skip: 0 };
      if (TERMINATORS.includes(c)) {
        let j = i + 1;
        while (j < b.length && (TERMINATORS.includes(b[j]!) || CLOSERS.includes(b[j]!))) j++;
        if (j === b.length) {
          if (final) continue;
          if (!this.#eager || !this.#endsNow(b, i, j)) return 'more';
          this.#cutEarly = true;
          return { cut: j, skip: 0 };
        }
        if (!/\s/.test(b[j]!)) {
          i = j - 1;
          continue;
        }
        if (c === '.' && j === i + 1 && !this.#endsSentence(b.slice(0, i))) continue;
        return { cut: j, skip: 0 };
      }
      const clauseMin = this.#pieces === 0 ? this.#firstClauseMinChars : this.#clauseMinChars;
      if (CLAUSE.includes(c) && i + 1 >= clauseMin) {
        if (i + 1 === b.length) return final ? undefined : 'more';
        if (/\s/.test(b[i + 1]!)) return { cut: i + 1, skip: 0 };
      }
    }
    if (b.length > this.#maxChars) {
      const space = b.lastIndexOf(' ', this.#maxChars);
      return { cut: space > 0 ? space : this.#maxChars, skip: 0 };
    }
    return final ? undefined : 'more';
  }

  /** A terminator at the end of what has arrived that ends its sentence whatever comes next. */
  #endsNow(b: string, i: number, j: number): boolean {
    if (j !== i + 1) return false; // closers or more marks may follow
    if (b[i] !== '.') return true;
    const word = /([^\s(["'“‘]*)$/.exec(b.slice(0, i))?.[1] ?? '';
    return /^\p{L}{2,}$/u.test(word) && !ABBREVIATIONS.has(word.toLowerCase());
  }

  /** Whether a period after `before` ends a sentence (not an abbreviation, initial or list number). */
  #endsSentence(before: string): boolean {
    const word = /([^\s(["'“‘]*)$/.exec(before)?.[1] ?? '';
    if (ABBREVIATIONS.has(word.toLowerCase())) return false;
    if (/^[A-Za-z]$/.test(word)) return false; // an initial: "J. R. R. Tolkien"
    // "1." alone on its line is a list marker, not the end of a sentence
    if (/^\d+$/.test(word) && before.slice(0, before.length - word.length).trim() === '') return false;
    return true;
  }
}
