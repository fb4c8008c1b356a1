/**
 * Text that makes espeak-ng say much of a language's phoneme inventory, for tests: the numbers
 * (read as the language's own number words) and the letters of its script (read by their names).
 */

/** Letters of each script (Unicode ranges), for the languages not written in Latin letters. */
const SCRIPTS: Readonly<Record<string, readonly [number, number]>> = {
  Arab: [0x0621, 0x064a],
  Armn: [0x0561, 0x0586],
  Beng: [0x0985, 0x09b9],
  Cher: [0x13a0, 0x13f4],
  Cyrl: [0x0430, 0x045f],
  Deva: [0x0905, 0x0939],
  Ethi: [0x1200, 0x1248],
  Geor: [0x10d0, 0x10f0],
  Grek: [0x03b1, 0x03c9],
  Gujr: [0x0a85, 0x0ab9],
  Guru: [0x0a05, 0x0a39],
  Hang: [0xac00, 0xac00 + 28 * 21 * 3],
  Hebr: [0x05d0, 0x05ea],
  Hira: [0x3041, 0x3093],
  Knda: [0x0c85, 0x0cb9],
  Mlym: [0x0d05, 0x0d39],
  Mymr: [0x1000, 0x102a],
  Orya: [0x0b05, 0x0b39],
  Piqd: [0xf8d0, 0xf8f9],
  Sinh: [0x0d85, 0x0dc6],
  Taml: [0x0b85, 0x0bb9],
  Telu: [0x0c05, 0x0c39],
  Thai: [0x0e01, 0x0e2e],
};

/** Languages not written in Latin letters (by primary subtag, or whole tag where it differs). */
const SCRIPT_OF: Readonly<Record<string, string>> = {
  am: 'Ethi',
  ti: 'Ethi',
  ar: 'Arab',
  fa: 'Arab',
  ur: 'Arab',
  sd: 'Arab',
  ug: 'Arab',
  as: 'Beng',
  bn: 'Beng',
  bpy: 'Beng',
  ba: 'Cyrl',
  be: 'Cyrl',
  bg: 'Cyrl',
  cv: 'Cyrl',
  kk: 'Cyrl',
  ky: 'Cyrl',
  mk: 'Cyrl',
  nog: 'Cyrl',
  ru: 'Cyrl',
  sr: 'Cyrl',
  tt: 'Cyrl',
  uk: 'Cyrl',
  hi: 'Deva',
  kok: 'Deva',
  mr: 'Deva',
  ne: 'Deva',
  ka: 'Geor',
  el: 'Grek',
  grc: 'Grek',
  gu: 'Gujr',
  pa: 'Guru',
  he: 'Hebr',
  ko: 'Hang',
  ja: 'Hira',
  kn: 'Knda',
  ml: 'Mlym',
  my: 'Mymr',
  shn: 'Mymr',
  or: 'Orya',
  si: 'Sinh',
  ta: 'Taml',
  te: 'Telu',
  th: 'Thai',
  hy: 'Armn',
  hyw: 'Armn',
  chr: 'Cher',
  'tlh-Piqd': 'Piqd',
  'fa-Latn': 'Latn',
  'zh-Latn-pinyin': 'Latn',
  'yue-Latn-jyutping': 'Latn',
};

/** Chinese: a few dozen common characters (espeak reads Han characters in cmn, yue and hak). */
const HAN =
  '我你他是的不了人在有这个上们来到时大地为子中说生国年着就那和要她出也得里后自以会家可下而过天去能对小多然于心学么之都好看起发当没成只如事把还用第样道想作';
const LATIN = 'a b c d e f g h i j k l m n o p q r s t u v w x y z ä å ç é ë ñ ø ő š ţ ü ÿ ž ð þ æ œ';
const NUMBERS = '0 1 2 3 4 5 6 7 8 9 10 11 12 17 20 21 30 40 50 60 70 80 90 100 1000 1000000';

export function languageSample(tag: string): string {
  const script =
    SCRIPT_OF[tag] ?? SCRIPT_OF[tag.split('-')[0]!] ?? (/^(zh|yue|hak)/.test(tag) ? 'Hani' : 'Latn');
  if (script === 'Latn') return `${NUMBERS}. ${LATIN}.`;
  if (script === 'Hani') return `${NUMBERS}. ${[...HAN].join(' ')}.`;
  const [from, to] = SCRIPTS[script]!;
  const letters: string[] = [];
  const step = Math.max(1, Math.floor((to - from) / 80));
  for (let c = from; c <= to; c += step) {
    const ch = String.fromCodePoint(c);
    if (/\p{L}/u.test(ch) || script === 'Piqd') letters.push(ch);
  }
  return `${NUMBERS}. ${letters.join(' ')}.`;
}
