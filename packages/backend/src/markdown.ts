/**
 * Markdown a model writes, turned into what a voice should read: emphasis, headings, list and
 * quote markers, links (their text), images (their alt text), inline code (its content) lose their
 * markup; bare URLs and horizontal rules are dropped. Works on one piece from the sentence
 * splitter, so markup split across pieces (a bold run over two sentences) is dropped as strays.
 */
export function stripMarkdown(text: string): string {
  return text
    .split('\n')
    .map(stripLine)
    .filter((l) => l !== '')
    .join('\n');
}

function stripLine(line: string): string {
  let s = line;
  if (/^\s*([-*_]\s*){3,}$/.test(s)) return ''; // a horizontal rule
  if (/^\s*\|?[\s:|-]+\|[\s:|-]*$/.test(s) && s.includes('-')) return ''; // a table's rule row
  s = s.replace(/^\s{0,3}#{1,6}\s+/, ''); // heading
  s = s.replace(/^\s*(>\s*)+/, ''); // quote
  s = s.replace(/^\s*([-*+•]|\d{1,3}[.)])\s+/, ''); // list marker
  s = s.replace(/^\s*\[[ xX]\]\s+/, ''); // task box
  s = s.replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1'); // image → alt text
  s = s.replace(/\[([^\]]+)\]\([^)]*\)/g, '$1'); // link → its text
  s = s.replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1'); // reference link
  s = s.replace(/<(https?:\/\/[^>\s]+)>/g, ''); // autolink
  s = s.replace(/\bhttps?:\/\/[^\s)\]>]+/g, ''); // bare URL
  s = s.replace(/\bwww\.[^\s)\]>]+/g, '');
  s = s.replace(/`+([^`]*)`+/g, '$1'); // inline code → content
  s = s.replace(/(\*\*|__)(?=\S)([^]*?\S)\1/g, '$2'); // strong
  s = s.replace(/~~(?=\S)([^]*?\S)~~/g, '$1'); // strikethrough
  s = s.replace(/(^|[^\w*])\*(?=\S)([^*]*?\S)\*(?![\w*])/g, '$1$2'); // *emphasis*
  s = s.replace(/(^|[^\w])_(?=\S)([^_]*?\S)_(?!\w)/g, '$1$2'); // _emphasis_ (not snake_case)
  s = s.replace(/\*\*|__|~~|`/g, ''); // strays of a run cut across pieces
  s = s.replace(/(^|\s)\*(?=\S)|(?<=\S)\*(?=\s|$)/g, '$1');
  if (s.includes('|'))
    s = s
      .replace(/^\s*\|/, '')
      .replace(/\|\s*$/, '')
      .replace(/\s*\|\s*/g, ', ');
  s = s.replace(/<\/?[a-zA-Z][^>]*>/g, ' '); // HTML tags
  s = s.replace(/\(\s*\)/g, ''); // parentheses a dropped URL left empty
  s = s.replace(/\s+([,.;:!?])/g, '$1');
  return s.replace(/\s{2,}/g, ' ').trim();
}
