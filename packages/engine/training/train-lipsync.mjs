#!/usr/bin/env node
/**
 * Trains the audio-only lip-sync model (src/lipsync/audio-model.ts) on espeak-ng speech whose
 * phoneme timeline is known, evaluates it on held-out voices, languages, texts, rates and
 * degraded copies, and writes src/lipsync/model-weights.json (+ model-weights.ts, its TypeScript
 * twin). Plain Node ESM: the lip-sync and speech sources are bundled on the fly with esbuild.
 *
 *   node packages/engine/training/train-lipsync.mjs            # train, evaluate, write weights
 *   node packages/engine/training/train-lipsync.mjs --eval     # evaluate the shipped weights only
 */
import { build } from 'esbuild';
import * as prettier from 'prettier';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const lipsyncDir = join(here, '../src/lipsync');
const evalOnly = process.argv.includes('--eval');
const LAMBDA = Number(process.argv.find((a) => a.startsWith('--lambda='))?.slice(9) ?? 3);

async function loadModules() {
  const tmp = mkdtempSync(join(here, '.bundle-'));
  try {
    const out = join(tmp, 'entry.mjs');
    await build({
      stdin: {
        contents: `
          export { Espeak } from './src/speech/espeak.ts';
          export { VOICES } from './src/speech/voices.ts';
          export { fitAudioModel, scoreAudioModel } from './training/audio-training.ts';
          export { AUDIO_MODEL } from './src/lipsync/audio-model.ts';
          export { BAND_COUNT, CONTEXT_FRAMES, FEATURE_COUNT } from './src/lipsync/audio-features.ts';`,
        resolveDir: join(here, '..'),
        loader: 'ts',
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      outfile: out,
      logLevel: 'warning',
    });
    return await import(pathToFileURL(out).href);
  } finally {
    setTimeout(() => rmSync(tmp, { recursive: true, force: true }), 0);
  }
}

const TRAIN_TEXTS = {
  en: [
    'Papa bought a big blue bag of apples at the market, but Mary wanted plums.',
    'My brother Bob may move to Boston by May, with his map and a pair of boots.',
    'The wide open hall was warm and bright, and everyone laughed about the awful weather.',
    'Please pass me the paper, Emma; I promise to be back before the movie begins.',
    'Five fat frogs fled from the fox, while a very vain vulture watched the valley.',
    'How far is the harbour from here? About an hour on foot, or half that by bike.',
  ],
  de: ['Papa baut im Mai ein blaues Boot, und Mama malt bunte Bilder vom Meer.'],
  es: ['Mi papá compró mambos y pimientos en el mercado, pero mamá prefiere manzanas.'],
};
const TEST_TEXTS = {
  en: [
    'Bobby grabbed the small brown puppy and put him in a basket by the empty bench.',
    'I am happy to help you, but maybe we should map out a better plan for Monday.',
    'Open the window a bit; the room is becoming much too warm for me.',
  ],
  fr: ['Mon petit papa a mis une pomme bien mûre dans le panier de maman.'],
  ru: ['Мама мыла раму, а папа пил молоко у большого моря.'],
  it: ['Mio padre ha comprato un bel pane e poi mele buone per il bambino.'],
  pt: ['Meu pai bebeu um pouco de mate e comeu bolo de batata com mamãe.'],
  nl: ['Mijn moeder maakt pannenkoeken met boter en bessen voor de baby.'],
};

const TRAIN = [
  ['en-us-male', 'en', 1],
  ['en-us-female', 'en', 1],
  ['en-us-male', 'en', 1.3],
  ['en-gb-male', 'en', 0.85],
  ['de-male', 'de', 1],
  ['es-female', 'es', 1],
];
const TEST = [
  ['en-gb-female', 'en', 1],
  ['en-us-female', 'en', 1],
  ['en-us-male', 'en', 0.8],
  ['fr-male', 'fr', 1],
  ['ru-female', 'ru', 1],
  ['it-male', 'it', 1],
  ['pt-br-female', 'pt', 1],
  ['nl-female', 'nl', 1],
];

function synth(m, espeak, voiceId, texts, speed) {
  const voice = m.VOICES.find((v) => v.id === voiceId);
  return texts.map((t) => espeak.synthesize(t, voice.espeakVoice, speed));
}

/** Deterministic degradations: white noise at 20 dB SNR, and −20 dB level. */
function withNoise(pcm, snrDb) {
  let power = 0;
  for (const s of pcm) power += s * s;
  const sigma = Math.sqrt(power / pcm.length / 10 ** (snrDb / 10));
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const out = new Int16Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) {
    const g = Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
    out[i] = Math.max(-32768, Math.min(32767, Math.round(pcm[i] + sigma * g)));
  }
  return out;
}
const quieter = (pcm, db) => Int16Array.from(pcm, (s) => Math.round(s * 10 ** (db / 20)));

function evaluate(m, model, rows) {
  const lines = [];
  let sumR = 0;
  let minR = Infinity;
  let maxR = -Infinity;
  let tot = 0;
  let det = 0;
  let prec = 0;
  const lags = [];
  for (const [name, segs] of rows) {
    let r = 0;
    let lag = 0;
    let t = 0;
    let d = 0;
    let p = 0;
    for (const seg of segs) {
      const s = m.scoreAudioModel(seg, model);
      r += s.r / segs.length;
      lag += s.lagMs / segs.length;
      t += s.closures.total;
      d += s.closures.detected;
      p += s.closurePrecision / segs.length;
    }
    sumR += r;
    minR = Math.min(minR, r);
    maxR = Math.max(maxR, r);
    tot += t;
    det += d;
    prec += p;
    lags.push(lag);
    lines.push(
      `${name.padEnd(28)} r=${r.toFixed(3)}  lag=${lag.toFixed(0).padStart(3)} ms  ` +
        `closures ${d}/${t} (${((100 * d) / Math.max(1, t)).toFixed(0)} %)  precision ${(100 * p).toFixed(0)} %`,
    );
  }
  const summary = {
    r: +(sumR / rows.length).toFixed(3),
    rMin: +minR.toFixed(3),
    rMax: +maxR.toFixed(3),
    lagMs: [Math.min(...lags), Math.max(...lags)].map((x) => Math.round(x)),
    closuresDetectedPct: +((100 * det) / Math.max(1, tot)).toFixed(1),
    closures: tot,
    closurePrecisionPct: +((100 * prec) / rows.length).toFixed(1),
  };
  return { lines, summary };
}

const m = await loadModules();
const espeak = await m.Espeak.load();
const trainSet = TRAIN.flatMap(([voice, lang, speed]) => synth(m, espeak, voice, TRAIN_TEXTS[lang], speed));
const testRows = TEST.map(([voice, lang, speed]) => [
  `${voice} ×${speed}`,
  synth(m, espeak, voice, TEST_TEXTS[lang], speed),
]);
const base = testRows[0][1];
testRows.push(['en-gb-female + noise 20 dB', base.map((s) => ({ ...s, pcm: withNoise(s.pcm, 20) }))]);
testRows.push(['en-gb-female −20 dB', base.map((s) => ({ ...s, pcm: quieter(s.pcm, -20) }))]);
const seconds = (segs) => segs.reduce((a, s) => a + s.pcm.length / 48000, 0);
console.log(
  `train: ${trainSet.length} utterances, ${seconds(trainSet).toFixed(1)} s; ` +
    `test: ${testRows.length} sets, ${testRows.reduce((a, [, s]) => a + seconds(s), 0).toFixed(1)} s`,
);

const model = evalOnly ? m.AUDIO_MODEL : { ...m.fitAudioModel(trainSet, LAMBDA) };
const train = evaluate(m, model, [['train (all)', trainSet]]);
const test = evaluate(m, model, testRows);
console.log(train.lines.join('\n'));
console.log(test.lines.join('\n'));
console.log('held-out summary:', JSON.stringify(test.summary));
// baseline: loudness alone (the mean normalised band level of the centre frame), same closures
const loudness = new Array(m.FEATURE_COUNT).fill(0);
for (let b = 0; b < m.BAND_COUNT; b++) loudness[m.CONTEXT_FRAMES * m.BAND_COUNT + b] = 1 / m.BAND_COUNT;
const baseline = evaluate(m, { ...model, openness: loudness }, testRows);
console.log('loudness baseline, held-out:', JSON.stringify(baseline.summary));

if (!evalOnly) {
  const round = (x) => +x.toFixed(5);
  const weights = {
    openness: model.openness.map(round),
    classScale: model.classScale.map(round),
    classes: model.classes.map((c) => ({ viseme: c.viseme, mean: c.mean.map(round) })),
    provenance: {
      script: 'packages/engine/training/train-lipsync.mjs',
      lambda: LAMBDA,
      train: TRAIN.map(([v, l, s]) => `${v} ${l} ×${s}`),
      trainSeconds: +seconds(trainSet).toFixed(1),
      heldOut: test.summary,
      loudnessBaselineHeldOut: baseline.summary,
    },
  };
  const format = async (file, text) => {
    const options = await prettier.resolveConfig(file);
    writeFileSync(file, await prettier.format(text, { ...options, filepath: file }));
  };
  await format(join(lipsyncDir, 'model-weights.json'), JSON.stringify(weights));
  await format(
    join(lipsyncDir, 'model-weights.ts'),
    '// Generated by training/train-lipsync.mjs from model-weights.json: do not edit.\n' +
      "import type { AudioModelWeights } from './audio-model.js';\n\n" +
      `export const MODEL_WEIGHTS: AudioModelWeights = ${JSON.stringify(weights)};\n`,
  );
  console.log('wrote src/lipsync/model-weights.json and model-weights.ts');
}
