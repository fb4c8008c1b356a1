/**
 * espeak-ng IPA phoneme ids (any language; stress ˈˌ, length ː and tie bars stripped) → the
 * Preston Blair / Rhubarb mouth shapes A–H, X. An empty id is a pause (X); unknown sounds → B.
 */
import { Viseme } from '../face-state.js';

const CLOSED = new Set(['p', 'b', 'm', 'ɓ', 'ʙ', 'ɱ']);
const LIP_BITE = new Set(['f', 'v', 'ɸ', 'β']);
const PUCKER = new Set(['u', 'ʊ', 'w', 'ɥ', 'y', 'ʏ', 'ʍ', 'ɯ', 'ɵ']);
const ROUNDED = new Set(['o', 'ɔ', 'ɒ', 'ø', 'œ', 'ɜ', 'ɞ', 'ɚ', 'ɝ', 'ɤ']);
const WIDE = new Set(['a', 'ɑ', 'æ', 'ɐ', 'ɶ', 'ä']);
const OPEN = new Set(['ɛ', 'e', 'ʌ', 'ə', 'ɘ', 'ɨ', 'ɪ']);
const TONGUE = new Set(['l', 'ɫ', 'ɬ', 'ɮ', 'ʎ', 'ɭ', 'θ', 'ð']);

export function normalizeIpa(ipa: string): string {
  return ipa
    .replace(/[ˈˌːˑ͡‿_!;#^\d]/g, '')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '');
}

export function visemeOf(ipa: string): Viseme {
  const p = normalizeIpa(ipa);
  if (p === '') return Viseme.X;
  const first = [...p][0]!;
  if (CLOSED.has(first)) return Viseme.A;
  if (LIP_BITE.has(first)) return Viseme.G;
  if (PUCKER.has(first)) return Viseme.F;
  if (ROUNDED.has(first)) return Viseme.E;
  if (WIDE.has(first)) return Viseme.D;
  if (OPEN.has(first)) return Viseme.C;
  if (TONGUE.has(first)) return Viseme.H;
  if (first === 'i') return Viseme.B;
  return Viseme.B;
}

/** Whether the phoneme carries primary stress (for emphasis). */
export function isStressed(ipa: string): boolean {
  return ipa.includes('ˈ');
}
