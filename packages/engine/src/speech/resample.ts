/**
 * Zero-delay band-limited resampling (Kaiser-windowed sinc, evaluated at each output instant),
 * so an event at input sample s lands at output sample s·out/in exactly: lip-sync depends on it.
 * Used per sentence/clip, with zero padding at the edges.
 */
const HALF_TAPS = 16;
const TABLE_STEPS = 256; // kernel samples per input-sample distance
const BETA = 8;

let table: Float32Array | undefined;

function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; k < 30; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
  }
  return sum;
}

/** sinc(d)·kaiser(d / HALF_TAPS) for d in [0, HALF_TAPS], tabulated. */
function kernelTable(): Float32Array {
  if (table) return table;
  const t = new Float32Array(HALF_TAPS * TABLE_STEPS + 2);
  const i0b = besselI0(BETA);
  for (let i = 0; i < t.length; i++) {
    const d = i / TABLE_STEPS;
    const r = d / HALF_TAPS;
    const w = r >= 1 ? 0 : besselI0(BETA * Math.sqrt(1 - r * r)) / i0b;
    t[i] = d === 0 ? 1 : (Math.sin(Math.PI * d) / (Math.PI * d)) * w;
  }
  table = t;
  return t;
}

/** Resamples mono PCM (float, −1..1 or int16 range alike) from `fromHz` to `toHz`. */
export function resample(input: Float32Array | Int16Array, fromHz: number, toHz: number): Float32Array {
  if (fromHz === toHz) return Float32Array.from(input);
  return resampleRange(input, input.length, fromHz, toHz, 0, Math.round((input.length * toHz) / fromHz));
}

/**
 * Output samples [n0, n1) of resampling the first `length` input samples (zero beyond them):
 * the same values `resample` gives, so a stream can be resampled piece by piece. Rates in a small
 * ratio (22 050 → 48 000 is 147/320) use a polyphase table: the kernel's taps for each of the
 * ratio's phases computed once, so a sample is a plain dot product (espeak's speech is resampled
 * this way, about 4× faster than evaluating the kernel per tap: docs/design.md §13.8).
 */
export function resampleRange(
  input: Float32Array | Int16Array,
  length: number,
  fromHz: number,
  toHz: number,
  n0: number,
  n1: number,
): Float32Array {
  const phases = polyphase(fromHz, toHz);
  if (!phases) return resampleRangeDirect(input, length, fromHz, toHz, n0, n1);
  const { l, m, lo, taps, coef } = phases;
  const out = new Float32Array(Math.max(0, n1 - n0));
  for (let n = n0; n < n1; n++) {
    const q = n * m;
    const base = Math.floor(q / l);
    const c = (q - base * l) * taps;
    const first = base + lo;
    let acc = 0;
    if (first >= 0 && first + taps <= length) {
      for (let j = 0; j < taps; j++) acc += input[first + j]! * coef[c + j]!;
    } else {
      const j0 = Math.max(0, -first);
      const j1 = Math.min(taps, length - first);
      for (let j = j0; j < j1; j++) acc += input[first + j]! * coef[c + j]!;
    }
    out[n - n0] = acc;
  }
  return out;
}

/** The kernel's taps per phase of a rational ratio: output n reads inputs floor(n·m/l) + lo …. */
interface Polyphase {
  l: number;
  m: number;
  lo: number;
  taps: number;
  coef: Float32Array;
}
const MAX_PHASES = 2048;
const polyphases = new Map<string, Polyphase | undefined>();

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function polyphase(fromHz: number, toHz: number): Polyphase | undefined {
  const key = `${fromHz}/${toHz}`;
  if (polyphases.has(key)) return polyphases.get(key);
  let made: Polyphase | undefined;
  if (Number.isInteger(fromHz) && Number.isInteger(toHz) && fromHz > 0 && toHz > 0) {
    const g = gcd(fromHz, toHz);
    const l = toHz / g;
    const m = fromHz / g;
    if (l <= MAX_PHASES) made = phaseTable(l, m, Math.min(1, toHz / fromHz));
  }
  polyphases.set(key, made);
  return made;
}

function phaseTable(l: number, m: number, fc: number): Polyphase {
  const k = kernelTable();
  const reach = HALF_TAPS / fc;
  // offsets from floor(x): the kernel is zero at ±reach, so x − reach itself never needs a tap
  const lo = Math.floor(-reach) + 1;
  const taps = Math.ceil(reach) - lo + 1;
  const coef = new Float32Array(l * taps);
  for (let p = 0; p < l; p++) {
    const frac = p / l;
    for (let j = 0; j < taps; j++) {
      const d = Math.abs(frac - (lo + j));
      if (d > reach) continue;
      const pos = d * fc * TABLE_STEPS;
      const idx = pos | 0;
      coef[p * taps + j] = (k[idx]! + (k[idx + 1]! - k[idx]!) * (pos - idx)) * fc;
    }
  }
  return { l, m, lo, taps, coef };
}

/** The kernel evaluated at every tap (any ratio; the reference the polyphase table is tested against). */
export function resampleRangeDirect(
  input: Float32Array | Int16Array,
  length: number,
  fromHz: number,
  toHz: number,
  n0: number,
  n1: number,
): Float32Array {
  const k = kernelTable();
  const ratio = fromHz / toHz; // input samples per output sample
  const fc = Math.min(1, 1 / ratio); // cutoff relative to the input Nyquist
  const reach = HALF_TAPS / fc;
  const out = new Float32Array(Math.max(0, n1 - n0));
  for (let n = n0; n < n1; n++) {
    const x = n * ratio;
    const lo = Math.max(0, Math.ceil(x - reach));
    const hi = Math.min(length - 1, Math.floor(x + reach));
    let acc = 0;
    for (let i = lo; i <= hi; i++) {
      const pos = Math.abs(x - i) * fc * TABLE_STEPS;
      const idx = pos | 0;
      const frac = pos - idx;
      const h = k[idx]! + (k[idx + 1]! - k[idx]!) * frac;
      acc += input[i]! * h;
    }
    out[n - n0] = acc * fc;
  }
  return out;
}

/** How many input samples past an output instant the kernel reads. */
export function resampleReach(fromHz: number, toHz: number): number {
  return HALF_TAPS / Math.min(1, toHz / fromHz);
}

export function floatToInt16(input: Float32Array, scale = 1): Int16Array {
  const out = new Int16Array(input.length);
  for (let i = 0; i < input.length; i++) {
    const v = Math.round(input[i]! * scale);
    out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
  return out;
}
