/**
 * espeak starts every sentence with silence (12–50 ms before the first phoneme). For the first
 * sentence of a turn that silence is pure latency, so it is cut to `keepMs` before the first
 * sounding phoneme; phoneme and word positions shift with it. (A plosive's closure is part of its
 * phoneme, so the lips still close before the burst.)
 */
import type { SpeechSegment } from './types.js';

export function trimLeadingSilence(seg: SpeechSegment, keepMs = 10): SpeechSegment {
  const first = seg.phonemes.find((p) => p.ipa !== '');
  if (!first) return seg;
  const cut = Math.max(0, first.startSample - Math.round((keepMs * seg.sampleRateHz) / 1000));
  if (cut === 0) return seg;
  const at = (s: number): number => Math.max(0, s - cut);
  return {
    pcm: seg.pcm.subarray(cut),
    sampleRateHz: seg.sampleRateHz,
    phonemes: seg.phonemes
      .filter((p) => p.startSample >= cut || p === first)
      .map((p) => ({ ...p, startSample: at(p.startSample) })),
    words: seg.words.map((w) => ({ ...w, startSample: at(w.startSample), endSample: at(w.endSample) })),
  };
}
