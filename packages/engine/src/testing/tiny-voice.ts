/**
 * Tiny local neural voices for tests, made by scripts/make-tiny-vits.py (Debian's python3-onnx) into
 * $TMPDIR/mouthpiece-tiny-vits/<hash of the script>/ and reused: a Piper-style VITS model whose
 * every token id k sounds as TOKEN_SAMPLES samples of a sine at k × HZ_PER_ID Hz, the same model
 * failing whenever it is given the phoneme "z" (its process aborts), and a corrupt one (the model
 * file cut short). `tokensOf` reads the spoken tokens back from audio.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The tiny model's constants (scripts/make-tiny-vits.py). */
export const TINY_VOICE = { sampleRateHz: 16_000, tokenSamples: 640, hzPerId: 50 } as const;

export interface TinyVoices {
  /** Speaks any text. */
  good: string;
  /** Aborts its process when the text holds the phoneme "z" ("Buzz"), speaks the rest. */
  failsOnZ: string;
  /** Its model.onnx is cut short: does not load. */
  corrupt: string;
  /** tokens.txt's symbols by id. */
  symbols: string[];
}

const SCRIPT = fileURLToPath(new URL('../../../../scripts/make-tiny-vits.py', import.meta.url));

function python(): string {
  for (const py of ['/usr/bin/python3', 'python3']) {
    try {
      execFileSync(py, ['-c', 'import onnx'], { stdio: 'ignore' });
      return py;
    } catch {
      // the next one
    }
  }
  throw new Error('the local-voice tests need python3 with onnx: apt-get install python3-onnx');
}

let made: TinyVoices | undefined;

/** Makes (once per script version) and returns the tiny voices' folders. */
export function tinyVoices(): TinyVoices {
  if (made) return made;
  const script = readFileSync(SCRIPT);
  const root = join(
    tmpdir(),
    'mouthpiece-tiny-vits',
    createHash('sha256').update(script).digest('hex').slice(0, 12),
  );
  const dirs = {
    good: join(root, 'good'),
    failsOnZ: join(root, 'fails-on-z'),
    corrupt: join(root, 'corrupt'),
  };
  if (!existsSync(join(root, 'done'))) {
    const tmp = `${root}.${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    const py = python();
    execFileSync(py, [SCRIPT, join(tmp, 'good')], { stdio: ['ignore', 'ignore', 'inherit'] });
    execFileSync(py, [SCRIPT, join(tmp, 'fails-on-z'), '--fail-on', 'z'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    mkdirSync(join(tmp, 'corrupt'));
    const model = readFileSync(join(tmp, 'good', 'model.onnx'));
    writeFileSync(join(tmp, 'corrupt', 'model.onnx'), model.subarray(0, model.length >> 1));
    copyFileSync(join(tmp, 'good', 'tokens.txt'), join(tmp, 'corrupt', 'tokens.txt'));
    symlinkSync(readlinkSync(join(tmp, 'good', 'espeak-ng-data')), join(tmp, 'corrupt', 'espeak-ng-data'));
    writeFileSync(join(tmp, 'done'), '');
    mkdirSync(join(root, '..'), { recursive: true });
    try {
      renameSync(tmp, root);
    } catch {
      rmSync(tmp, { recursive: true, force: true }); // another test process made it first
    }
  }
  const symbols = readFileSync(join(dirs.good, 'tokens.txt'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (l.startsWith(' ') ? ' ' : l.split(' ')[0]!));
  made = { ...dirs, symbols };
  return made;
}

/**
 * The tokens the tiny model spoke, read back from its audio at any rate: each token's span (its
 * length scaled by 1/speed) holds a sine whose zero crossings give its id.
 */
export function tokensOf(pcm: Int16Array, sampleRateHz: number, speed = 1): number[] {
  const span = Math.round((TINY_VOICE.tokenSamples / TINY_VOICE.sampleRateHz / speed) * sampleRateHz);
  const ids: number[] = [];
  for (let at = 0; at + span <= pcm.length + span / 4; at += span) {
    // the middle of the span: the resampler rings a little where one tone stops and the next starts
    const edge = Math.round(span / 10);
    const s = pcm.subarray(at + edge, Math.min(pcm.length, at + span - edge));
    // sign changes (ignoring ripple around silence); the frequency from the first to the last
    let crossings = 0;
    let sign = 0;
    let first = -1;
    let last = -1;
    s.forEach((x, i) => {
      const now = x > 2000 ? 1 : x < -2000 ? -1 : 0;
      if (now !== 0 && sign !== 0 && now !== sign) {
        crossings++;
        if (first < 0) first = i;
        last = i;
      }
      if (now !== 0) sign = now;
    });
    const hz = crossings < 2 ? 0 : (crossings - 1) / 2 / ((last - first) / sampleRateHz);
    ids.push(Math.round(hz / TINY_VOICE.hzPerId));
  }
  return ids;
}
