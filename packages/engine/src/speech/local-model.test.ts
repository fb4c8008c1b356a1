/**
 * A local voice's model folder: its kind read from the files in it, and a folder or file that is
 * missing named in the error. No model is loaded here (local-probe.test.ts loads them).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tinyVoices } from '../testing/tiny-voice.js';
import { LocalModelError, readLocalModel } from './local-model.js';

function folder(name: string, files: string[]): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'mp-local-')), name);
  mkdirSync(dir);
  for (const f of files) {
    if (f.endsWith('/')) mkdirSync(join(dir, f));
    else writeFileSync(join(dir, f), 'x');
  }
  return dir;
}

describe('local model folders', () => {
  it('a Piper voice (the tiny test model): VITS with espeak-ng data', () => {
    const { good } = tinyVoices();
    expect(readLocalModel(good)).toEqual({
      kind: 'vits',
      dir: good,
      files: {
        vits: {
          model: join(good, 'model.onnx'),
          tokens: join(good, 'tokens.txt'),
          dataDir: join(good, 'espeak-ng-data'),
        },
      },
    });
  });

  it('Kokoro, Kitten and Matcha folders are told apart by their files', () => {
    const kokoro = folder('kokoro-en-v0_19', ['model.onnx', 'voices.bin', 'tokens.txt', 'espeak-ng-data/']);
    expect(readLocalModel(kokoro).kind).toBe('kokoro');
    const kitten = folder('kitten-nano-en-v0_1-fp16', [
      'model.fp16.onnx',
      'voices.bin',
      'tokens.txt',
      'espeak-ng-data/',
    ]);
    expect(readLocalModel(kitten)).toMatchObject({
      kind: 'kitten',
      files: { kitten: { model: join(kitten, 'model.fp16.onnx') } },
    });
    const matcha = folder('matcha-icefall-en_US-ljspeech', [
      'model-steps-3.onnx',
      'vocos-22khz-univ.onnx',
      'tokens.txt',
      'espeak-ng-data/',
    ]);
    expect(readLocalModel(matcha)).toMatchObject({
      kind: 'matcha',
      files: {
        matcha: {
          acousticModel: join(matcha, 'model-steps-3.onnx'),
          vocoder: join(matcha, 'vocos-22khz-univ.onnx'),
        },
      },
    });
    const lexicon = folder('vits-ljs', ['vits-ljs.onnx', 'vits-ljs.int8.onnx', 'tokens.txt', 'lexicon.txt']);
    expect(readLocalModel(lexicon)).toMatchObject({
      kind: 'vits',
      files: { vits: { model: join(lexicon, 'vits-ljs.onnx'), lexicon: join(lexicon, 'lexicon.txt') } },
    });
  });

  it('what is missing is named: the folder, the model, tokens.txt, espeak-ng-data', () => {
    const missing = join(tmpdir(), 'mp-no-such-model-folder');
    expect(() => readLocalModel(missing)).toThrow(
      new LocalModelError(missing, `the model folder ${missing} does not exist or cannot be read`),
    );
    const empty = folder('empty', ['README.md']);
    expect(() => readLocalModel(empty)).toThrow(`the model folder ${empty} holds no .onnx model`);
    const noTokens = folder('piper', ['en_US-x.onnx', 'espeak-ng-data/']);
    expect(() => readLocalModel(noTokens)).toThrow(`${join(noTokens, 'tokens.txt')} is missing`);
    const noData = folder('piper', ['en_US-x.onnx', 'tokens.txt']);
    expect(() => readLocalModel(noData)).toThrow(`${join(noData, 'espeak-ng-data')} is missing`);
    const kokoro = folder('kokoro', ['model.onnx', 'voices.bin', 'tokens.txt']);
    expect(() => readLocalModel(kokoro)).toThrow(`${join(kokoro, 'espeak-ng-data')} is missing`);
  });
});
