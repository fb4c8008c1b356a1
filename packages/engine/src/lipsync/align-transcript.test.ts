import { describe, expect, it } from 'vitest';
import { espeakSpeech } from '../testing/espeak-speech.js';
import { MISMATCH_COST, alignTranscript, transcriptMouthTrack } from './align-transcript.js';
import { analyzeAudioMouth } from './audio-mouth.js';

const TEXT = 'Maybe the man with the blue umbrella will bring the papers by Monday morning.';

/** Alignment errors (ms) of the phonemes that have a sound, pairing events by order. */
async function errorsMs(
  refVoice: string,
  uploadVoice: string,
  uploadSpeed: number,
  leadingSilenceMs = 0,
): Promise<number[]> {
  const tts = espeakSpeech();
  const reference = await tts.synthesize({ text: TEXT, voiceId: refVoice, speed: 1 });
  const spoken = await tts.synthesize({ text: TEXT, voiceId: uploadVoice, speed: uploadSpeed });
  const pad = leadingSilenceMs * 48;
  const pcm = new Int16Array(pad + spoken.pcm.length);
  pcm.set(spoken.pcm, pad);
  const upload = {
    pcm,
    phonemes: spoken.phonemes.map((p) => ({ ...p, startSample: p.startSample + pad })),
  };
  const { phonemes: aligned, meanCost } = alignTranscript({ pcm48k: upload.pcm, reference });
  expect(meanCost).toBeLessThan(MISMATCH_COST);
  expect(aligned.map((p) => p.ipa)).toEqual(reference.phonemes.map((p) => p.ipa));
  expect(upload.phonemes.map((p) => p.ipa)).toEqual(reference.phonemes.map((p) => p.ipa));
  const out: number[] = [];
  for (let i = 0; i < aligned.length; i++)
    if (aligned[i]!.ipa !== '')
      out.push(Math.abs(aligned[i]!.startSample - upload.phonemes[i]!.startSample) / 48);
  return out;
}

const share = (xs: number[], limitMs: number): number => xs.filter((x) => x <= limitMs).length / xs.length;

describe('alignTranscript', () => {
  it('places the phonemes of a slower rendition of the transcript where they sound', async () => {
    const errors = await errorsMs('en-us-male', 'en-us-male', 0.8);
    expect(share(errors, 20)).toBeGreaterThan(0.95);
  });

  it('aligns across voices (the upload is not the reference voice)', async () => {
    const errors = await errorsMs('en-us-male', 'en-us-female', 0.85);
    expect(share(errors, 20)).toBeGreaterThan(0.9);
  });

  it('skips silence the upload starts with', async () => {
    const errors = await errorsMs('en-us-female', 'en-us-male', 1.2, 400);
    expect(share(errors, 20)).toBeGreaterThan(0.9);
  });
});

describe('alignTranscript with a transcript of several sentences', () => {
  it('joins the sentences and finds each in the upload, pauses included', async () => {
    const tts = espeakSpeech();
    const sentences = ['Bring me the map, please.', 'We will meet by the old mill at five.'];
    const reference = await Promise.all(
      sentences.map((text) => tts.synthesize({ text, voiceId: 'en-us-female', speed: 1 })),
    );
    const spoken = await Promise.all(
      sentences.map((text) => tts.synthesize({ text, voiceId: 'en-us-male', speed: 0.9 })),
    );
    const gap = 48 * 500;
    const pcm = new Int16Array(spoken[0]!.pcm.length + gap + spoken[1]!.pcm.length);
    pcm.set(spoken[0]!.pcm, 0);
    pcm.set(spoken[1]!.pcm, spoken[0]!.pcm.length + gap);
    const truth = [
      ...spoken[0]!.phonemes,
      ...spoken[1]!.phonemes.map((p) => ({ ...p, startSample: p.startSample + spoken[0]!.pcm.length + gap })),
    ];
    const { phonemes: aligned, meanCost } = alignTranscript({ pcm48k: pcm, reference });
    expect(meanCost).toBeLessThan(MISMATCH_COST);
    expect(aligned.map((p) => p.ipa)).toEqual(truth.map((p) => p.ipa));
    const errors = aligned
      .map((p, i) => ({ p, e: Math.abs(p.startSample - truth[i]!.startSample) / 48 }))
      .filter(({ p }) => p.ipa !== '')
      .map(({ e }) => e);
    expect(share(errors, 20)).toBeGreaterThan(0.9);
  });
});

describe('transcriptMouthTrack', () => {
  it('uses the transcript when it fits, and the audio alone when it does not', async () => {
    const tts = espeakSpeech();
    const upload = await tts.synthesize({ text: TEXT, voiceId: 'en-us-female', speed: 0.9 });
    const right = await tts.synthesize({ text: TEXT, voiceId: 'en-us-male', speed: 1 });
    const wrong = await tts.synthesize({
      text: 'Please close the door behind you when you leave the room tonight.',
      voiceId: 'en-us-male',
      speed: 1,
    });
    expect(alignTranscript({ pcm48k: upload.pcm, reference: wrong }).meanCost).toBeGreaterThan(MISMATCH_COST);
    const audioOnly = analyzeAudioMouth(upload.pcm);
    const fallback = transcriptMouthTrack({ pcm48k: upload.pcm, reference: wrong });
    const aligned = transcriptMouthTrack({ pcm48k: upload.pcm, reference: right });
    let rounded = 0;
    for (let s = 0; s < upload.pcm.length; s += 1920) {
      expect(fallback.at(s)).toEqual(audioOnly.at(s));
      if (aligned.at(s).round > 0.5) rounded++;
    }
    // shapes only phonemes give: "blue", "Monday morning" round the lips; audio alone never does
    expect(rounded).toBeGreaterThan(0);
  });
});
