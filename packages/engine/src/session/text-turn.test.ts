import { describe, expect, it } from 'vitest';
import type { SpeechSegment, SynthesisRequest } from '../speech/types.js';
import type { Tts } from '../speech/tts.js';
import { TextTurnSynth } from './text-turn.js';
import type { PieceView } from './turn-audio.js';

/** Each request yields 100 ms of audio whose first phoneme starts after 40 ms of silence. */
function fakeTts(): Tts & { texts: string[] } {
  const texts: string[] = [];
  return {
    texts,
    synthesize(req: SynthesisRequest): Promise<SpeechSegment> {
      texts.push(req.text);
      return Promise.resolve({
        pcm: new Int16Array(4800).fill(1),
        sampleRateHz: 48000,
        phonemes: [
          { ipa: '', startSample: 0 },
          { ipa: 'a', startSample: 1920 },
        ],
        words: [],
      });
    },
    close: () => Promise.resolve(),
  };
}

describe('TextTurnSynth', () => {
  it('synthesizes the first sentence clause by clause, later sentences whole, as chunks arrive', async () => {
    const tts = fakeTts();
    const synth = new TextTurnSynth('t1', tts, 'en-us-female', 1);
    synth.addText('Thanks for waiting, I found the answer. ');
    synth.addText('It ships today, as you asked');
    expect(tts.texts).toEqual(['Thanks for waiting,', 'I found the answer.']);
    synth.finish();
    await new Promise((r) => setTimeout(r, 0));
    expect(tts.texts).toEqual(['Thanks for waiting,', 'I found the answer.', 'It ships today, as you asked']);
    const pieces = [0, 1, 2].map((i) => synth.audio.read(i));
    expect(synth.audio.read(3)).toEqual({ kind: 'end' });
    // only the turn's first piece loses its lead-in (to 10 ms before the first phoneme)
    expect(pieces.map((r) => (r as { piece: PieceView }).piece.pcm.length)).toEqual([
      4800 - 1440,
      4800,
      4800,
    ]);
  });

  it('does not split a short head or a clause with nothing after it', () => {
    const tts = fakeTts();
    const synth = new TextTurnSynth('t2', tts, 'en-us-female', 1);
    synth.addText('Yes, ok. ');
    expect(tts.texts).toEqual(['Yes, ok.']);
  });
});
