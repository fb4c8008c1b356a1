import { describe, expect, it } from 'vitest';
import { visemeOf } from './visemes.js';

describe('visemeOf', () => {
  it.each([
    // English
    ['p', 'A'],
    ['b', 'A'],
    ['m', 'A'],
    ['f', 'G'],
    ['v', 'G'],
    ['uː', 'F'],
    ['w', 'F'],
    ['ˈɔː', 'E'],
    ['ˌoʊ', 'E'],
    ['ˈɑː', 'D'],
    ['æ', 'D'],
    ['ˈaɪ', 'D'],
    ['ˈeɪ', 'C'],
    ['ə', 'C'],
    ['ˈɛɹ', 'C'],
    ['l', 'H'],
    ['θ', 'H'],
    ['ð', 'H'],
    ['t', 'B'],
    ['s', 'B'],
    ['iː', 'B'],
    ['ʃ', 'B'],
    ['dʒ', 'B'],
    ['ju', 'F'],
    // German, French, Spanish, Portuguese
    ['pf', 'A'],
    ['ˈyː', 'F'],
    ['ˈøː', 'E'],
    ['ˈɔ̃', 'E'],
    ['œ̃', 'E'],
    ['β', 'G'],
    ['ɐ', 'D'],
    ['ɐ̃ʊ̃\u0007', 'D'],
    // Russian, Hindi, Mandarin (tone digits), Japanese, Dutch
    ['mʲ', 'A'],
    ['tʃʲ', 'B'],
    ['bʰ', 'A'],
    ['ˈiɑ', 'D'],
    ['ua', 'D'],
    ['yɛ', 'C'],
    ['tɕh', 'B'],
    ['a5', 'D'],
    ['ˈɯᵝ', 'F'],
    ['ʋ', 'G'],
    // pauses, language switches, unknown sounds
    ['', 'X'],
    ['(en)', 'X'],
    ['ʘ', 'A'], // the bilabial click
    // espeak's ASCII names (Faroese, Catalan, Vietnamese …) and lone modifiers
    ['9', 'E'],
    ['2ː', 'E'],
    ['ˈA', 'D'],
    ['tS', 'B'],
    ['Φ', 'G'],
    ['l-', 'H'],
    ['ˈ?a', 'D'],
    ['ː', 'X'],
  ])('%s → %s', (ipa, v) => expect(visemeOf(ipa)).toBe(v));
});
