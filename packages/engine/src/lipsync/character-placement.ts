/**
 * Mouth timings for a provider that gives character timings (ElevenLabs): espeak's reading of the
 * same text knows which phonemes each word has and how they divide the word's time; the
 * provider's characters say when each word was said. Each espeak word's phonemes are stretched
 * onto the provider's span of that word (from its first character to the next word's first).
 */
import type { CharacterTiming } from '../speech/provider.js';
import type { SpeechSegment } from '../speech/types.js';

const RATE = 48_000;

/** For each code unit of `text`, the provider's start and end time (s), where known. */
function timesOfText(text: string, chars: readonly CharacterTiming[]): Array<[number, number] | undefined> {
  const out = new Array<[number, number] | undefined>(text.length).fill(undefined);
  let i = 0;
  let matched = 0;
  for (const c of chars) {
    const at = text.indexOf(c.char, i);
    // a character the text does not have next (normalised away) is skipped, not searched far for
    if (c.char === '' || at < 0 || at - i > 8) continue;
    for (let k = at; k < at + c.char.length; k++) out[k] = [c.startSec, c.endSec];
    i = at + c.char.length;
    matched++;
  }
  if (matched >= chars.length / 2 || chars.length === 0) return out;
  // the alignment is of another text (normalised): spread it proportionally instead
  const last = chars.at(-1)!;
  return Array.from(text, (_, k) => {
    const c = chars[Math.min(chars.length - 1, Math.floor((k * chars.length) / text.length))]!;
    return [c.startSec, Math.min(c.endSec, last.endSec)];
  });
}

export function placeOnCharacters(
  text: string,
  reading: Pick<SpeechSegment, 'phonemes' | 'words'>,
  chars: readonly CharacterTiming[],
  totalSamples: number,
): { phonemes: SpeechSegment['phonemes']; words: SpeechSegment['words'] } {
  const times = timesOfText(text, chars);
  const lastEnd = Math.min(totalSamples, Math.round((chars.at(-1)?.endSec ?? 0) * RATE));
  // each espeak word's place in the text and the provider's start of it
  const spans: Array<{ espeak: number; provider: number; text: string; providerEnd: number }> = [];
  let cursor = 0;
  const lower = text.toLowerCase();
  for (const w of reading.words) {
    const at = lower.indexOf(w.text.toLowerCase(), cursor);
    if (at < 0 || !w.text) continue;
    cursor = at + w.text.length;
    const known = times.slice(at, cursor).filter((t): t is [number, number] => !!t);
    if (known.length === 0) continue;
    const start = Math.round(known[0]![0] * RATE);
    const end = Math.round(known.at(-1)![1] * RATE);
    const prev = spans.at(-1);
    if (prev && start < prev.provider) continue; // keep time moving forward
    spans.push({ espeak: w.startSample, provider: start, text: w.text, providerEnd: end });
  }
  if (spans.length === 0) return { phonemes: [], words: [] };
  const espeakEnd = reading.phonemes.at(-1)?.startSample ?? spans.at(-1)!.espeak;
  const phonemes: SpeechSegment['phonemes'] = [];
  for (const p of reading.phonemes) {
    if (p.startSample < spans[0]!.espeak) continue; // the reading's lead-in
    let k = spans.length - 1;
    while (k > 0 && spans[k]!.espeak > p.startSample) k--;
    const a = spans[k]!;
    const b = spans[k + 1];
    const e0 = a.espeak;
    const e1 = b ? b.espeak : Math.max(espeakEnd, e0 + 1);
    const p0 = a.provider;
    const p1 = b ? b.provider : Math.max(lastEnd, a.providerEnd, p0 + 1);
    const f = Math.min(1, Math.max(0, (p.startSample - e0) / Math.max(1, e1 - e0)));
    const at = Math.min(totalSamples, Math.round(p0 + f * (p1 - p0)));
    const prev = phonemes.at(-1)?.startSample ?? 0;
    phonemes.push({ ipa: p.ipa, startSample: Math.max(prev, at) });
  }
  const words = spans.map((s) => ({
    text: s.text,
    startSample: Math.min(totalSamples, s.provider),
    endSample: Math.min(totalSamples, Math.max(s.provider, s.providerEnd)),
  }));
  return { phonemes, words };
}
