/**
 * A mouth track: mouth parameters over a speech segment's 48 kHz timeline (docs/design.md §6.3): visemes from
 * phoneme events, closures (A) and lip-bites (G) held ≥ 60 ms ending at their release, dominance
 * blending with raised-cosine cross-fades over 60 ms (the notes measured 40–80 ms as working),
 * short pauses absorbed, targets leading the sound by 20 ms. Tabulated at 100 Hz so the media
 * tick samples it in O(1).
 */
import { REST_MOUTH, Viseme, type MouthParams } from '../face-state.js';
import { DOMINANCE, MOUTH_SHAPES, mixMouth } from './mouth-shapes.js';
import { continuesPrevious, isMarker, isStressed, visemeOf } from './visemes.js';
import { SAMPLE_RATE_HZ } from '../clock/media-clock.js';

export const LEAD_MS = 20;
export const BLEND_MS = 60;
export const MIN_CLOSURE_MS = 60;
/** Pauses shorter than this inside speech do not bring the mouth to rest. */
export const SHORT_PAUSE_MS = 80;
const TABLE_HZ = 100;

export interface MouthTrack {
  durationSamples: number;
  at(sample: number): MouthParams;
  visemeAt(sample: number): Viseme;
  /** 0..1: how stressed the syllable sounding at this sample is. */
  emphasisAt(sample: number): number;
  /**
   * What the speech the mouth shows at this sample sounds like (lipsync/sound-signature.ts), for
   * tracks made from audio alone: a video avatar matches it against its recorded person's sounds.
   */
  soundAt?(sample: number): Float32Array;
}

interface Segment {
  viseme: Viseme;
  start: number; // ms
  end: number; // ms
  stressed: boolean;
}

export function buildMouthTrack(input: {
  phonemes: ReadonlyArray<{ ipa: string; startSample: number }>;
  totalSamples: number;
  sampleRateHz?: number;
}): MouthTrack {
  const rate = input.sampleRateHz ?? SAMPLE_RATE_HZ;
  const durationMs = (input.totalSamples / rate) * 1000;
  const segs = segmentsOf(input.phonemes, rate, durationMs);
  return tabulate(segs, input.totalSamples, rate, durationMs);
}

function segmentsOf(
  phonemes: ReadonlyArray<{ ipa: string; startSample: number }>,
  rate: number,
  durationMs: number,
): Segment[] {
  const segs: Segment[] = [];
  phonemes = phonemes.filter((p) => !isMarker(p.ipa));
  for (let i = 0; i < phonemes.length; i++) {
    const p = phonemes[i]!;
    const start = (p.startSample / rate) * 1000;
    const end = i + 1 < phonemes.length ? (phonemes[i + 1]!.startSample / rate) * 1000 : durationMs;
    if (end <= start) continue;
    const last = segs.at(-1);
    // a lone length mark or nasal tilde (some languages' ids) goes on with the sound before it
    const viseme = last && continuesPrevious(p.ipa) ? last.viseme : visemeOf(p.ipa);
    if (last && last.viseme === viseme && Math.abs(last.end - start) < 1) {
      last.end = end;
      last.stressed ||= isStressed(p.ipa);
      continue;
    }
    segs.push({ viseme, start, end, stressed: isStressed(p.ipa) });
  }
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i]!;
    if ((s.viseme === Viseme.A || s.viseme === Viseme.G) && s.end - s.start < MIN_CLOSURE_MS) {
      // espeak puts a stop's closure in the preceding phoneme: take that time back from it
      s.start = Math.max(0, s.end - MIN_CLOSURE_MS);
      for (let j = i - 1; j >= 0 && segs[j]!.end > s.start; j--)
        segs[j]!.end = Math.max(segs[j]!.start, s.start);
    }
  }
  // silence before the first and after the last sound
  const first = segs[0]?.start ?? durationMs;
  const last = segs.at(-1)?.end ?? 0;
  const all = [
    { viseme: Viseme.X, start: -1000, end: first, stressed: false },
    ...segs.filter((s) => s.end > s.start),
    { viseme: Viseme.X, start: last, end: durationMs + 1000, stressed: false },
  ];
  // a short pause between sounds is not a rest: its neighbours meet in its middle
  for (let i = 1; i + 1 < all.length; i++) {
    const s = all[i]!;
    if (s.viseme !== Viseme.X || s.end - s.start >= SHORT_PAUSE_MS) continue;
    const mid = (s.start + s.end) / 2;
    all[i - 1]!.end = Math.max(all[i - 1]!.end, mid);
    all[i + 1]!.start = Math.min(all[i + 1]!.start, mid);
    s.end = s.start;
  }
  // merge runs of one shape
  const merged: Segment[] = [];
  for (const s of all) {
    if (s.end <= s.start) continue;
    const prev = merged.at(-1);
    if (prev && prev.viseme === s.viseme && s.start - prev.end < 1) {
      prev.end = Math.max(prev.end, s.end);
      prev.stressed ||= s.stressed;
    } else merged.push({ ...s });
  }
  return merged;
}

/**
 * A segment's raised-cosine weight at time t. Ordinary segments cross-fade with their neighbours
 * over BLEND_MS centred on each boundary (weight ½ at the boundary), so even a 50 ms vowel between
 * two closures opens; closures and lip-bites keep full weight over their whole (≥ 60 ms) interval
 * and fade out over BLEND_MS / 2 outside it, so they are held yet never swallow a neighbour.
 */
function weightAt(t: number, s: Segment): number {
  const half = BLEND_MS / 2;
  const u = Math.min(t - s.start, s.end - t); // depth inside the segment (negative outside)
  if (s.viseme === Viseme.A || s.viseme === Viseme.G) {
    if (u >= 0) return 1;
    return u <= -half ? 0 : 0.5 * (1 + Math.cos((Math.PI * u) / half));
  }
  if (u >= half) return 1;
  if (u <= -half) return 0;
  return 0.5 + 0.5 * Math.sin((Math.PI * u) / (2 * half));
}

function sameMouth(a: MouthParams, b: MouthParams): boolean {
  return (
    a.open === b.open &&
    a.width === b.width &&
    a.round === b.round &&
    a.teeth === b.teeth &&
    a.lipBite === b.lipBite &&
    a.tongue === b.tongue
  );
}

function tabulate(segs: Segment[], totalSamples: number, rate: number, durationMs: number): MouthTrack {
  const n = Math.max(1, Math.ceil((durationMs / 1000) * TABLE_HZ) + 1);
  const mouths: MouthParams[] = new Array<MouthParams>(n);
  const visemes: Viseme[] = new Array<Viseme>(n);
  const emphasis = new Float32Array(n);
  let from = 0;
  for (let k = 0; k < n; k++) {
    const t = (k * 1000) / TABLE_HZ + LEAD_MS; // the mouth shows now what sounds 20 ms later
    while (from < segs.length && segs[from]!.end + BLEND_MS < t) from++;
    const parts: Array<{ w: number; p: MouthParams }> = [];
    let best: Segment | undefined;
    let bestW = 0;
    let emph = 0;
    for (let i = from; i < segs.length && segs[i]!.start - BLEND_MS <= t; i++) {
      const s = segs[i]!;
      const r = weightAt(t, s);
      if (r <= 0) continue;
      const w = DOMINANCE[s.viseme] * r;
      parts.push({ w, p: MOUTH_SHAPES[s.viseme] });
      if (w > bestW) {
        bestW = w;
        best = s;
      }
      if (s.stressed) emph = Math.max(emph, r);
    }
    mouths[k] = parts.length ? mixMouth(parts) : { ...REST_MOUTH };
    visemes[k] = best?.viseme ?? Viseme.X;
    emphasis[k] = emph;
  }
  const indexOf = (sample: number): number =>
    Math.min(n - 1, Math.max(0, Math.round((sample / rate) * TABLE_HZ)));
  return {
    durationSamples: totalSamples,
    at(sample) {
      const x = Math.min(n - 1, Math.max(0, (sample / rate) * TABLE_HZ));
      const i = Math.floor(x);
      const f = x - i;
      const a = mouths[i]!;
      const b = mouths[Math.min(n - 1, i + 1)]!;
      if (f === 0 || sameMouth(a, b)) return { ...a };
      return mixMouth([
        { w: 1 - f, p: a },
        { w: f, p: b },
      ]);
    },
    visemeAt: (sample) => visemes[indexOf(sample)]!,
    emphasisAt: (sample) => emphasis[indexOf(sample)]!,
  };
}
