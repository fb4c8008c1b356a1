/**
 * The speech of a test clip (testing/talking-clip.ts): a phonetically varied passage spoken by
 * espeak-ng, one sentence per turn, laid out on the clip's 48 kHz timeline with silent stretches
 * (a lead-in, pauses between sentences, one long idle pause), and each frame's mouth worked out
 * as the engine does: the sentence's mouth track sampled at the frame's centre, at rest between
 * sentences (session/face-frame.ts). Loaded lazily by talking-clip.ts (espeak's WASM is not for the fakes' users).
 */
import { SAMPLE_RATE_HZ } from '../clock/media-clock.js';
import { REST_MOUTH, type MouthParams, type Viseme } from '../face-state.js';
import { buildMouthTrack, type MouthTrack } from '../lipsync/mouth-track.js';
import { trimLeadingSilence } from '../speech/trim.js';
import { espeakSpeech } from './espeak-speech.js';

/**
 * The passage: every mouth shape in turn — closures (m, b, p), lip-bites (f, v), rounded lips
 * (oo, w), wide open (aa), spread (ee, s), tongue (l, th) — each sentence followed by its pause
 * in seconds (the 3 s one is an idle stretch in the middle of the clip).
 */
export const CLIP_PASSAGE: ReadonlyArray<{ text: string; pauseAfterS: number }> = [
  { text: 'My baby brother put a pebble in the bumpy map box.', pauseAfterS: 0.8 },
  { text: 'Five very fine violins have a few flaws.', pauseAfterS: 1.2 },
  { text: 'We knew two blue moose would swoop through the pool.', pauseAfterS: 3 },
  { text: 'Father calls the large dog far across the park.', pauseAfterS: 0.9 },
  { text: 'She sees three sleepy seals eating cheese.', pauseAfterS: 1 },
  { text: 'Little lilies lean along the yellow lane.', pauseAfterS: 0.8 },
  { text: 'Think of this thing that they thought of.', pauseAfterS: 1.5 },
];
/** Silence before the first sentence. */
export const CLIP_LEAD_IN_S = 2;

/** One sentence placed on the clip's timeline. */
export interface PlacedSentence {
  text: string;
  /** First and one-past-last sample on the clip's 48 kHz timeline. */
  startSample: number;
  endSample: number;
  pcm: Int16Array;
  track: MouthTrack;
  words: Array<{ text: string; startSample: number; endSample: number }>;
}

/** What the mouth does in one frame. */
export interface FrameSpeech {
  /** A sentence is sounding at the frame's centre (the engine's "speaking" for the animator). */
  speaking: boolean;
  /** Index into the placed sentences, or -1. */
  sentence: number;
  viseme: Viseme;
  emphasis: number;
  /** The mouth the renderer is driven with (rest outside a sentence). */
  mouth: MouthParams;
}

export interface ClipSpeech {
  sentences: PlacedSentence[];
  /** The whole clip's audio, 48 kHz mono, exactly frames / fps long. */
  pcm: Int16Array;
  /** The mouth of every frame. */
  frames: FrameSpeech[];
}

/** Synthesizes the passage (once per voice and speed) with the engine's espeak-ng. */
async function synthesize(
  voiceId: string,
  speed: number,
): Promise<
  Array<{
    text: string;
    pauseAfterS: number;
    pcm: Int16Array;
    track: MouthTrack;
    words: PlacedSentence['words'];
  }>
> {
  const tts = espeakSpeech();
  try {
    const out = [];
    for (const s of CLIP_PASSAGE) {
      // every sentence is a turn of its own: its lead-in silence is cut as the engine cuts it
      const seg = trimLeadingSilence(await tts.synthesize({ text: s.text, voiceId, speed }));
      const track = buildMouthTrack({ phonemes: seg.phonemes, totalSamples: seg.pcm.length });
      out.push({ ...s, pcm: seg.pcm, track, words: seg.words });
    }
    return out;
  } finally {
    await tts.close();
  }
}

/** The passage's natural length in seconds: lead-in, sentences and pauses. */
export function passageSeconds(spoken: ReadonlyArray<{ pcm: Int16Array; pauseAfterS: number }>): number {
  return spoken.reduce((t, s) => t + s.pcm.length / SAMPLE_RATE_HZ + s.pauseAfterS, CLIP_LEAD_IN_S);
}

/**
 * The clip's speech: the passage from the start, looped while whole sentences fit (a sentence
 * that would be cut by the end is left out: the rest is idle), with `speech: false` no sentence.
 * `frames` undefined: the passage's natural length.
 */
export async function clipSpeech(opts: {
  fps: number;
  frames: number | undefined;
  voiceId: string;
  speed: number;
  speech: boolean;
}): Promise<ClipSpeech> {
  const spoken = await synthesize(opts.voiceId, opts.speed);
  const frames = opts.frames ?? Math.round(passageSeconds(spoken) * opts.fps);
  const samplesPerFrame = SAMPLE_RATE_HZ / opts.fps;
  const total = Math.round(frames * samplesPerFrame);
  const pcm = new Int16Array(total);
  const sentences: PlacedSentence[] = [];
  let at = Math.round(CLIP_LEAD_IN_S * SAMPLE_RATE_HZ);
  for (let i = 0; opts.speech && spoken.length > 0; i++) {
    const s = spoken[i % spoken.length]!;
    if (at + s.pcm.length > total) break;
    pcm.set(s.pcm, at);
    sentences.push({
      text: s.text,
      startSample: at,
      endSample: at + s.pcm.length,
      pcm: s.pcm,
      track: s.track,
      words: s.words,
    });
    at += s.pcm.length + Math.round(s.pauseAfterS * SAMPLE_RATE_HZ);
    if (i % spoken.length === spoken.length - 1) at += Math.round(CLIP_LEAD_IN_S * SAMPLE_RATE_HZ);
  }
  return { sentences, pcm, frames: frameMouths(sentences, frames, opts.fps) };
}

/** Each frame's mouth: the track at the frame's centre sample, at rest outside a sentence. */
function frameMouths(sentences: readonly PlacedSentence[], frames: number, fps: number): FrameSpeech[] {
  const out: FrameSpeech[] = [];
  let k = 0;
  for (let n = 0; n < frames; n++) {
    const c = Math.round(((n + 0.5) / fps) * SAMPLE_RATE_HZ); // the frame's centre sample
    while (k < sentences.length && sentences[k]!.endSample <= c) k++;
    const s = sentences[k];
    const inside = s !== undefined && c >= s.startSample;
    const pos = inside ? c - s.startSample : 0;
    const mouth = inside ? s.track.at(pos) : { ...REST_MOUTH };
    out.push({
      speaking: inside,
      sentence: inside ? k : -1,
      viseme: inside ? s.track.visemeAt(pos) : 'X',
      emphasis: inside ? s.track.emphasisAt(pos) : 0,
      mouth,
    });
  }
  return out;
}

/** 16-bit mono PCM as a WAV file. */
export function wavBytes(pcm: Int16Array, sampleRateHz = SAMPLE_RATE_HZ): Buffer {
  const header = Buffer.alloc(44);
  const data = pcm.length * 2;
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRateHz, 24);
  header.writeUInt32LE(sampleRateHz * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data, 40);
  const body = Buffer.alloc(data);
  for (let i = 0; i < pcm.length; i++) body.writeInt16LE(pcm[i]!, i * 2);
  return Buffer.concat([header, body]);
}
