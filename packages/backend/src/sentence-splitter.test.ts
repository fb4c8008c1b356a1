import { describe, expect, it } from 'vitest';
import { SentenceSplitter, type Segment } from './sentence-splitter.js';
import { tokenize } from './testing/openai-standin.js';

/** Feeds the text in the given pieces (or one character at a time) and returns every piece out. */
function split(pieces: string[] | string, opts = {}): Segment[] {
  const s = new SentenceSplitter(opts);
  const input = typeof pieces === 'string' ? [...pieces] : pieces;
  return [...input.flatMap((p) => s.push(p)), ...s.end()];
}
const texts = (xs: Segment[]): string[] => xs.map((x) => x.text);

describe('SentenceSplitter', () => {
  it.each([
    ['sentences', 'Hello there. How are you? Fine!', ['Hello there.', 'How are you?', 'Fine!']],
    [
      'abbreviations',
      'Dr. Smith met Mr. Jones, e.g. at noon. Then left.',
      ['Dr. Smith met Mr. Jones, e.g. at noon.', 'Then left.'],
    ],
    [
      'decimals and versions',
      'Pi is 3.14 and v1.2.3 shipped. Done.',
      ['Pi is 3.14 and v1.2.3 shipped.', 'Done.'],
    ],
    ['initials', 'J. R. R. Tolkien wrote it. Yes.', ['J. R. R. Tolkien wrote it.', 'Yes.']],
    ['a number ending a sentence', 'It was 2024. Then came more.', ['It was 2024.', 'Then came more.']],
    ['newlines', 'Steps:\n1. Open it\n2. Close it\n\nDone', ['Steps:', '1. Open it', '2. Close it', 'Done']],
    [
      'closing quotes and brackets',
      'He said "stop." Then (he left.) Fine.',
      ['He said "stop."', 'Then (he left.)', 'Fine.'],
    ],
    ['ellipsis and repeated marks', 'Well... Really?! Yes.', ['Well...', 'Really?!', 'Yes.']],
    [
      'URLs and e-mail addresses',
      'See example.com/a.b or me@x.org now. Ok.',
      ['See example.com/a.b or me@x.org now.', 'Ok.'],
    ],
    ['full-width terminators', '你好。再见！', ['你好。', '再见！']],
    ['no terminator at the end', 'Hello there. And then', ['Hello there.', 'And then']],
    ['blank input', '  \n\n ', []],
  ])('%s', (_name, text, expected) => {
    // whole, and one character at a time (the worst cut a stream can make) without eager ends
    expect(texts(split([text]))).toEqual(expected);
    expect(texts(split(text, { eager: false }))).toEqual(expected);
  });

  it('fed as a model streams (words with their space, punctuation apart), eager ends cut the same; closers after the period are dropped', () => {
    const text =
      'He said "stop." Then (he left.) Dr. Lee paid 3.50 dollars! Fine? Yes. J. R. R. Tolkien wrote it.';
    expect(texts(split(tokenize(text)))).toEqual([
      'He said "stop.',
      'Then (he left.',
      'Dr. Lee paid 3.50 dollars!',
      'Fine?',
      'Yes.',
      'J. R. R. Tolkien wrote it.',
    ]);
  });

  it('the price of eager ends: a bare domain streamed in pieces is cut (eager: false keeps it)', () => {
    const text = 'See example.com now. Ok.';
    expect(texts(split(tokenize(text)))).toEqual(['See example.', 'com now.', 'Ok.']);
    expect(texts(split(tokenize(text), { eager: false }))).toEqual(['See example.com now.', 'Ok.']);
  });

  it('keeps a code fence whole, periods and all, and marks it', () => {
    const text = 'Run this:\n```js\nconst a = 1. toString();\nfoo.bar();\n```\nThat is it.';
    const out = split(text);
    expect(out).toEqual([
      { text: 'Run this:', code: false },
      { text: '```js\nconst a = 1. toString();\nfoo.bar();\n```', code: true },
      { text: 'That is it.', code: false },
    ]);
    expect(split([text])).toEqual(out);
  });

  it('an unclosed fence at the end is one code piece', () => {
    expect(split('Try:\n```\nx = 1. y\n')).toEqual([
      { text: 'Try:', code: false },
      { text: '```\nx = 1. y', code: true },
    ]);
  });

  it('ends a sentence as its terminator arrives, unless the next token could change that', () => {
    const s = new SentenceSplitter();
    expect(s.push('It costs 3.')).toEqual([]); // 3.50?
    expect(texts(s.push('50 dollars.'))).toEqual(['It costs 3.50 dollars.']);
    expect(s.push(' Ask Dr.')).toEqual([]); // an abbreviation, not an end
    expect(s.push(' Who')).toEqual([]);
    expect(texts(s.push('?'))).toEqual(['Ask Dr. Who?']);
    expect(s.push(' He said "go."')).toEqual([]); // more closers may follow
    expect(texts(s.push(' Then'))).toEqual(['He said "go."']);
    expect(s.push(' J.')).toEqual([]); // an initial
    expect(texts(s.end())).toEqual(['Then J.']);
  });

  it('cuts a long first sentence at its first comma past 40 characters, later ones past 80', () => {
    const text =
      'That is a really great question about returns, and the short answer is yes. After that the rest of the answer goes on, and on, without a cut until it ends.';
    expect(texts(split(tokenize(text)))).toEqual([
      'That is a really great question about returns,',
      'and the short answer is yes.',
      'After that the rest of the answer goes on, and on, without a cut until it ends.',
    ]);
  });

  it('cuts a long clause at a comma, and a run with no boundary at a space', () => {
    const clause = 'This first clause is long enough to be worth speaking on its own, and the rest follows.';
    expect(texts(split(clause, { clauseMinChars: 40 }))).toEqual([
      'This first clause is long enough to be worth speaking on its own,',
      'and the rest follows.',
    ]);
    expect(texts(split('Short, then more.', { clauseMinChars: 40 }))).toEqual(['Short, then more.']);
    const long = 'word '.repeat(30).trim();
    const out = texts(split(long, { maxChars: 50 }));
    expect(out.every((p) => p.length <= 50)).toBe(true);
    expect(out.join(' ')).toBe(long);
  });
});
