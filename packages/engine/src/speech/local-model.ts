/**
 * A local neural voice's model folder (docs/voices.md, "Local neural voices"): which kind of model
 * it holds, read from the files in it, and the sherpa-onnx configuration that plays it. Pure file
 * checks: loading the model happens only in a child process (speech/local-process.ts), because a
 * model that does not load aborts its process instead of throwing.
 *
 * - Piper / VITS: one `.onnx`, `tokens.txt`, and `espeak-ng-data/` (Piper) or `lexicon.txt`.
 * - Kokoro: a model `.onnx`, `voices.bin`, `tokens.txt`, `espeak-ng-data/` (and `lexicon*.txt`).
 * - Kitten: the same files as Kokoro, in a folder whose name says `kitten` (as upstream names them).
 * - Matcha: an acoustic model `.onnx`, a vocoder `.onnx` (its name says vocos, hifigan or vocoder),
 *   `tokens.txt` and `espeak-ng-data/` or `lexicon.txt`.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CodedError } from '@mouthpiece/protocol';

export type LocalModelKind = 'vits' | 'kokoro' | 'kitten' | 'matcha';

/** sherpa-onnx's `OfflineTtsConfig.model` for one voice (only the fields we set). */
export type LocalModelFiles =
  | { vits: { model: string; tokens: string; dataDir?: string; lexicon?: string } }
  | { kokoro: { model: string; voices: string; tokens: string; dataDir: string; lexicon?: string } }
  | { kitten: { model: string; voices: string; tokens: string; dataDir: string } }
  | {
      matcha: { acousticModel: string; vocoder: string; tokens: string; dataDir?: string; lexicon?: string };
    };

export interface LocalModel {
  kind: LocalModelKind;
  dir: string;
  files: LocalModelFiles;
}

/** A model folder that cannot be used; the message names the folder or the file at fault. */
export class LocalModelError extends CodedError {
  static override code = 'ERR_LOCAL_MODEL';
  /** The folder or file at fault. */
  readonly path: string;
  constructor(path: string, message: string) {
    super(message);
    this.name = 'LocalModelError';
    this.path = path;
  }
}

const VOCODER = /vocos|hifigan|vocoder/i;

/** Reads a model folder: its kind and files. Throws LocalModelError naming what is missing. */
export function readLocalModel(dir: string): LocalModel {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new LocalModelError(dir, `${dir} is not a folder`);
    names = readdirSync(dir);
  } catch (err) {
    if (err instanceof LocalModelError) throw err;
    throw new LocalModelError(dir, `the model folder ${dir} does not exist or cannot be read`);
  }
  const has = (name: string): string | undefined => (names.includes(name) ? join(dir, name) : undefined);
  const need = (name: string, why: string): string => {
    const file = has(name);
    if (!file) throw new LocalModelError(join(dir, name), `${join(dir, name)} is missing (${why})`);
    return file;
  };
  const onnx = names.filter((n) => n.endsWith('.onnx')).sort();
  if (onnx.length === 0) throw new LocalModelError(dir, `the model folder ${dir} holds no .onnx model`);
  const tokens = need('tokens.txt', 'every local model has its token table');
  const dataDir = has('espeak-ng-data');
  const lexicon =
    has('lexicon.txt') ??
    names
      .filter((n) => /^lexicon.*\.txt$/.test(n))
      .map((n) => join(dir, n))
      .join(',');
  const vocoders = onnx.filter((n) => VOCODER.test(n));
  if (vocoders.length > 0) {
    const acoustic = onnx.find((n) => !VOCODER.test(n));
    if (!acoustic) throw new LocalModelError(dir, `${dir} holds a vocoder but no Matcha acoustic model`);
    if (!dataDir && !lexicon) need('espeak-ng-data', 'Matcha reads text through espeak-ng or a lexicon');
    return {
      kind: 'matcha',
      dir,
      files: {
        matcha: {
          acousticModel: join(dir, acoustic),
          vocoder: join(dir, vocoders[0]!),
          tokens,
          ...(dataDir ? { dataDir } : {}),
          ...(lexicon ? { lexicon } : {}),
        },
      },
    };
  }
  const model = join(dir, pickModel(onnx));
  if (has('voices.bin')) {
    const voices = join(dir, 'voices.bin');
    const espeak = need('espeak-ng-data', 'Kokoro and Kitten read text through espeak-ng');
    if (/kitten/i.test(basename(dir)))
      return { kind: 'kitten', dir, files: { kitten: { model, voices, tokens, dataDir: espeak } } };
    return {
      kind: 'kokoro',
      dir,
      files: { kokoro: { model, voices, tokens, dataDir: espeak, ...(lexicon ? { lexicon } : {}) } },
    };
  }
  if (!dataDir && !lexicon) need('espeak-ng-data', 'a Piper voice reads text through espeak-ng');
  return {
    kind: 'vits',
    dir,
    files: { vits: { model, tokens, ...(dataDir ? { dataDir } : {}), ...(lexicon ? { lexicon } : {}) } },
  };
}

/** The model among several `.onnx` files: the full-precision one before int8/fp16 variants. */
function pickModel(onnx: string[]): string {
  return onnx.find((n) => !/int8|fp16/i.test(n)) ?? onnx[0]!;
}
