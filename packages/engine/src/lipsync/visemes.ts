/**
 * espeak-ng phoneme ids (any of its languages) → the Preston Blair / Rhubarb mouth shapes A–H, X.
 * An id is IPA with stress ˈˌ, length ː, tie bars, tone digits, diacritics and secondary
 * articulations (ʰ ʲ ʷ ˤ ⁿ …) around the sounds; a few languages' tables name sounds by espeak's
 * ASCII mnemonics instead (`S` ʃ, `N` ŋ, `9` œ, `2ː` øː, `?` ʔ), which are read as their IPA.
 * An empty id is a pause (X); language-switch markers like "(en)" carry no sound; an id that is
 * only a modifier (a lone ː, a nasal tilde, a stress mark) continues the sound before it. Every
 * sound espeak says is in a class below (`espeak-lipsync.test.ts` checks every language); a sound
 * outside them would still open the mouth a little (B), never leave it at rest.
 */
import { Viseme } from '../face-state.js';
import { MOUTH_SHAPES } from './mouth-shapes.js';

const CLOSED = new Set([...'pbmɓʙɱʘ']); // ʘ: the bilabial click
const LIP_BITE = new Set([...'fvɸβʋⱱ']);
const TONGUE = new Set([...'lɫɬɮʎɭʟɺθð']);
const GLIDE_W = new Set([...'wɥʍ']);
const VOWELS: ReadonlyMap<string, Viseme> = new Map([
  ...[...'uʊyʏɯɵʉ'].map((c) => [c, Viseme.F] as const),
  ...[...'oɔɒøœɜɞɚɝɤ'].map((c) => [c, Viseme.E] as const),
  ...[...'aɑæɐɶ'].map((c) => [c, Viseme.D] as const),
  ...[...'ɛeʌəɘɨɪ'].map((c) => [c, Viseme.C] as const),
  ['i', Viseme.B] as const,
]);
/** Sounds made inside the mouth with the lips neither closed nor rounded: shape B. */
const OTHER = new Set([...'tdʈɖcɟkgɡqɢʔsʃʒʂʐɕʑçʝxɣχʁħʕhɦʜʢɧzʦʧʤnŋɲɳɴrɾɹɻɽʀjɰǀǁǂǃ']);

/** espeak's ASCII phoneme names (and two Greek letters) for sounds, as IPA. */
const MNEMONICS: Readonly<Record<string, string>> = {
  A: 'ɑ',
  D: 'ð',
  E: 'ɛ',
  I: 'ɪ',
  N: 'ŋ',
  O: 'ɔ',
  Q: 'ɒ',
  R: 'ʁ',
  S: 'ʃ',
  T: 'θ',
  U: 'ʊ',
  V: 'ʌ',
  X: 'x',
  Z: 'ʒ',
  '?': 'ʔ',
  '@': 'ə',
  Φ: 'ɸ',
  ε: 'ɛ',
};
/** A digit opening an id is a vowel (espeak's mnemonics); after a sound it is a tone. */
const DIGIT_VOWELS: Readonly<Record<string, string>> = {
  '0': 'ɒ',
  '2': 'ø',
  '3': 'ɜ',
  '6': 'ɐ',
  '8': 'ɵ',
  '9': 'œ',
};

const LONE_SOUNDS: Readonly<Record<string, string>> = { ʲ: 'j', ʷ: 'w', ʰ: 'h', ⁿ: 'n', ᵐ: 'm', ᵑ: 'ŋ' };

/** The sounds of a phoneme id: IPA letters only, mnemonics read, every modifier dropped. */
export function normalizeIpa(ipa: string): string {
  const bare = ipa
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '') // diacritics and tie bars
    .replace(/[ˈˌːˑ‿_!;:#^.\-`[\]'"ʼˀ˞ʰʲʷˠˤⁿᵐᵑᵝ\p{Cc}]/gu, '');
  let out = '';
  for (const c of bare) {
    if (/\d/.test(c)) out += out === '' ? (DIGIT_VOWELS[c] ?? '') : '';
    else out += MNEMONICS[c] ?? c;
  }
  // a secondary articulation standing alone is a sound of its own (Malayalam's "ʲ" after a pause)
  return out || (LONE_SOUNDS[[...ipa].find((c) => c in LONE_SOUNDS) ?? ''] ?? '');
}

/** espeak's language-switch markers, e.g. "(en)": events without a sound of their own. */
export function isMarker(ipa: string): boolean {
  return /^\(.*\)$/.test(ipa.replace(/[\s\p{Cc}]/gu, ''));
}

/** An id that is only a modifier (a lone ː, ̃ or ˈ): it lengthens or colours the sound before it. */
export function continuesPrevious(ipa: string): boolean {
  return ipa !== '' && !isMarker(ipa) && normalizeIpa(ipa) === '';
}

/** The letters of an id that no class above knows (none for anything espeak says). */
export function unmappedSounds(ipa: string): string[] {
  if (isMarker(ipa)) return [];
  return [...normalizeIpa(ipa)].filter(
    (c) =>
      !CLOSED.has(c) &&
      !LIP_BITE.has(c) &&
      !TONGUE.has(c) &&
      !GLIDE_W.has(c) &&
      !VOWELS.has(c) &&
      !OTHER.has(c),
  );
}

export function visemeOf(ipa: string): Viseme {
  if (isMarker(ipa)) return Viseme.X;
  const p = [...normalizeIpa(ipa)];
  const first = p[0];
  if (first === undefined) return Viseme.X;
  if (CLOSED.has(first)) return Viseme.A;
  if (LIP_BITE.has(first)) return Viseme.G;
  if (TONGUE.has(first)) return Viseme.H;
  // a diphthong or glide + vowel ("aɪ", "iɑ", "ua", "ju") shows its most open vowel
  let best: Viseme | undefined;
  for (const c of p) {
    const v = VOWELS.get(c);
    if (v !== undefined && (best === undefined || MOUTH_SHAPES[v].open > MOUTH_SHAPES[best].open)) best = v;
  }
  if (best !== undefined) return best;
  if (GLIDE_W.has(first)) return Viseme.F;
  return Viseme.B;
}

/** Whether the phoneme carries primary stress (for emphasis). */
export function isStressed(ipa: string): boolean {
  return ipa.includes('ˈ');
}
