/**
 * Sentence splitting for incremental synthesis: ends at . ! ? … and CJK 。！？, and at newlines;
 * keeps abbreviations ("Dr.", "e.g.") and decimals ("3.5") inside their sentence.
 */
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'no',
  'fig',
  'inc',
  'ltd',
  'co',
  'mt',
  'approx',
]);

export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  const push = (end: number): void => {
    const s = text.slice(start, end).trim();
    if (s) out.push(s);
    start = end;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n') {
      push(i + 1);
      continue;
    }
    if ('。！？'.includes(c)) {
      push(i + 1);
      continue;
    }
    if (!'.!?…'.includes(c)) continue;
    // swallow runs of terminators and closing quotes/brackets
    let j = i + 1;
    while (j < text.length && '.!?…"\')”’»]'.includes(text[j]!)) j++;
    if (j < text.length && !/\s/.test(text[j]!)) continue; // "3.5", "e.g.x", "a.b"
    if (c === '.') {
      const word = /([\p{L}.]+)$/u.exec(text.slice(start, i))?.[1]?.toLowerCase() ?? '';
      if (ABBREVIATIONS.has(word) || /^\p{L}$/u.test(word)) continue;
    }
    push(j);
    i = j - 1;
  }
  push(text.length);
  return out;
}
