/**
 * Band energies of mono 48 kHz audio: 10 ms hop, 1024-sample Hann window centred on each hop
 * (zero-phase, so features line up with the sound), log energy in 10 log-spaced bands.
 */
export const HOP_SAMPLES = 480;
const WINDOW = 1024;
const BAND_EDGES_HZ = [80, 160, 300, 500, 800, 1200, 1800, 2600, 3800, 5500, 8000];
export const BAND_COUNT = BAND_EDGES_HZ.length - 1;

const hann = Float32Array.from(
  { length: WINDOW },
  (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / WINDOW),
);

function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    const wr = Math.cos(ang);
    const wi = Math.sin(ang);
    for (let i = 0; i < n; i += len) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < len / 2; k++) {
        const a = i + k;
        const b = a + len / 2;
        const xr = re[b]! * cr - im[b]! * ci;
        const xi = re[b]! * ci + im[b]! * cr;
        re[b] = re[a]! - xr;
        im[b] = im[a]! - xi;
        re[a] = re[a]! + xr;
        im[a] = im[a]! + xi;
        const t = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = t;
      }
    }
  }
}

/** Per 10 ms frame: log10 energy of each band (frames × BAND_COUNT, row-major). */
export function bandEnergies(
  pcm: Int16Array,
  sampleRateHz = 48_000,
): { frames: number; bands: Float32Array } {
  const frames = Math.ceil(pcm.length / HOP_SAMPLES);
  const bands = new Float32Array(frames * BAND_COUNT);
  const re = new Float64Array(WINDOW);
  const im = new Float64Array(WINDOW);
  const binHz = sampleRateHz / WINDOW;
  const edges = BAND_EDGES_HZ.map((hz) => Math.round(hz / binHz));
  for (let f = 0; f < frames; f++) {
    const centre = f * HOP_SAMPLES + HOP_SAMPLES / 2;
    for (let i = 0; i < WINDOW; i++) {
      const s = centre - WINDOW / 2 + i;
      re[i] = s >= 0 && s < pcm.length ? (pcm[s]! / 32768) * hann[i]! : 0;
      im[i] = 0;
    }
    fft(re, im);
    for (let b = 0; b < BAND_COUNT; b++) {
      let e = 1e-10;
      for (let k = edges[b]!; k < edges[b + 1]!; k++) e += re[k]! * re[k]! + im[k]! * im[k]!;
      bands[f * BAND_COUNT + b] = Math.log10(e);
    }
  }
  return { frames, bands };
}
