/**
 * espeak-ng IPA phoneme ids (any language; stress ˈˌ, length ː, tie bars, tone digits and
 * diacritics stripped) → the Preston Blair / Rhubarb mouth shapes A–H, X. An empty id is a pause
 * (X); language-switch markers like "(en)" carry no sound; unknown sounds → B.
 */
import { Viseme } from '../face-state.js';
import { MOUTH_SHAPES } from './mouth-shapes.js';

const CLOSED = new Set(['p', 'b', 'm', 'ɓ', 'ʙ', 'ɱ']);
const LIP_BITE = new Set(['f', 'v', 'ɸ', 'β', 'ʋ']);
const TONGUE = new Set(['l', 'ɫ', 'ɬ', 'ɮ', 'ʎ', 'ɭ', 'θ', 'ð']);
const GLIDE_W = new Set(['w', 'ɥ', 'ʍ']);
const VOWELS: ReadonlyMap<string, Viseme> = new Map([
  ...[...'uʊyʏɯɵ'].map((c) => [c, Viseme.F] as const),
  ...[...'oɔɒøœɜɞɚɝɤ'].map((c) => [c, Viseme.E] as const),
  ...[...'aɑæɐɶä'].map((c) => [c, Viseme.D] as const),
  ...[...'ɛeʌəɘɨɪ'].map((c) => [c, Viseme.C] as const),
  ['i', Viseme.B] as const,
]);

export function normalizeIpa(ipa: string): string {
  return ipa
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[ˈˌːˑ‿_!;#^.\-\d\p{Cc}]/gu, ''); // tie bars (U+0361) went with the diacritics
}

/** espeak's language-switch markers, e.g. "(en)": events without a sound of their own. */
export function isMarker(ipa: string): boolean {
  return /^\(.*\)$/.test(ipa.trim());
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
