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
 * the same values `resample` gives, so a stream can be resampled piece by piece.
 */
export function resampleRange(
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
