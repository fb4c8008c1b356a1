/** A vector look for the drawing tests: every part drawn, the details each test varies given apart. */
import type { VectorLook } from '../face.js';

export function testLook(id: string, o: Pick<VectorLook, 'beard' | 'accessories'>): VectorLook {
  return {
    id,
    background: { top: '#203040', bottom: '#405060' },
    skin: { tone: '#c68642', shadow: '#8d5524', blush: '#e0a080' },
    face: { width: 0.5, length: 0.5, jaw: 0.5, chin: 0.5 },
    hair: { style: 'bob', color: '#2a1b10', highlight: '#5a3b20' },
    eyes: { iris: '#3b2a1a', shape: 'round', size: 0.5 },
    brows: { color: '#2a1b10', thickness: 0.5 },
    lips: { color: '#b0555a', thickness: 0.5 },
    nose: { width: 0.5 },
    clothing: { style: 'blazer', color: '#334455', accent: '#ddeeff' },
    ...o,
  };
}
