/**
 * The inner mouth of a photo avatar, drawn where the lips part: a dark cavity, the upper teeth
 * hanging from the upper jaw, the lower teeth and the tongue when the mouth opens wide (or the
 * tongue rises), in colours taken from the photo so it sits in the photo's light. It is drawn per
 * pixel against smooth inner-lip curves (mouth-tables.ts): each pixel's coverage of the opening
 * blends it into the warped lips over about a pixel, so the edge has no steps and no outline.
 */
import type { MouthParams } from '../face.js';
import type { Image32 } from './mesh-warp.js';
import type { MouthColours } from './mouth-colours.js';
import { STEP, chainCurve, ensureTables, smoothstep, type MouthTables } from './mouth-tables.js';
import type { PhotoRig, Vec } from './photo-rig.js';
import { teethTables } from './teeth.js';

/** One frame's inner mouth: the frame, its vertex positions, the face's axes in it and more. */
export interface InnerMouthFrame {
  out: Image32;
  pos: Float64Array;
  rig: PhotoRig;
  /** The face's axes in the frame (rotated with the head), photo to output scale. */
  r: Vec;
  u: Vec;
  scale: number;
  /** Where the lips meet at rest, in the frame. */
  stomion: Vec;
  mouth: MouthParams;
  colours: MouthColours;
  /** The pixels to look at (the cavity triangles' box), inclusive. */
  box: readonly [number, number, number, number];
}

/** Width of the anti-aliasing filter at the inner lips and the teeth, in output pixels. */
const AA = 1.2;

/** A drawer of inner mouths with its own scratch tables (one per renderer). */
export function createInnerMouth(): { draw(f: InnerMouthFrame): void } {
  let tables: MouthTables | undefined;
  return {
    draw(f) {
      const origin = mouthOrigin(f);
      const geo = lipTables(f, origin, tables);
      tables = geo.tb;
      fillColumns(f, origin, geo);
      scan(f, origin, geo);
    },
  };
}

function mouthOrigin(f: InnerMouthFrame): Vec {
  const [c0, c1] = [f.rig.innerUpper[0]!, f.rig.innerUpper.at(-1)!];
  return [(f.pos[c0 * 2]! + f.pos[c1 * 2]!) / 2, (f.pos[c0 * 2 + 1]! + f.pos[c1 * 2 + 1]!) / 2];
}

interface Geometry {
  tb: MouthTables;
  /** The opening: its ends, middle and half width along s, its greatest height. */
  sMin: number;
  sMax: number;
  sCentre: number;
  halfOpen: number;
  gapMax: number;
}

/** The inner lips of the frame as smooth curves across the mouth. */
function lipTables(f: InnerMouthFrame, origin: Vec, prev: MouthTables | undefined): Geometry {
  const local = (chain: readonly number[]): { ss: number[]; ts: number[] } => {
    const ss: number[] = [];
    const ts: number[] = [];
    for (const i of chain) {
      const x = f.pos[i * 2]! - origin[0];
      const y = f.pos[i * 2 + 1]! - origin[1];
      // s must increase along the chain: a landmark out of order is held just past its neighbour
      ss.push(Math.max(ss.at(-1) ?? -Infinity, x * f.r[0] + y * f.r[1]) + (ss.length ? 1e-3 : 0));
      ts.push(x * f.u[0] + y * f.u[1]);
    }
    return { ss, ts };
  };
  const up = local(f.rig.innerUpper);
  const lo = local(f.rig.innerLower);
  const sMin = Math.min(up.ss[0]!, lo.ss[0]!);
  const sMax = Math.max(up.ss.at(-1)!, lo.ss.at(-1)!);
  const n = Math.ceil((sMax - sMin + 4) / STEP) + 1;
  const tb = ensureTables(prev, n);
  tb.s0 = sMin - 2;
  tb.n = n;
  chainCurve(up.ss, up.ts, tb.s0, n, tb.tu, tb.nu);
  chainCurve(lo.ss, lo.ts, tb.s0, n, tb.tl, tb.nl);
  let gapMax = 0;
  for (let i = 0; i < n; i++) {
    if (tb.tl[i]! < tb.tu[i]!) tb.tl[i] = tb.tu[i]!;
    gapMax = Math.max(gapMax, tb.tl[i]! - tb.tu[i]!);
  }
  return { tb, sMin, sMax, sCentre: (sMin + sMax) / 2, halfOpen: Math.max(1, (sMax - sMin) / 2), gapMax };
}

/** Per column: the teeth (teeth.ts), the tongue's top and light, the corners' shadow. */
function fillColumns(f: InnerMouthFrame, origin: Vec, g: Geometry): void {
  const { tb } = g;
  const { mouth } = f;
  const mouthW = f.rig.mouthW * f.scale;
  const half = mouthW / 2;
  const sx = f.stomion[0] - origin[0];
  const sy = f.stomion[1] - origin[1];
  const sMid = sx * f.r[0] + sy * f.r[1];
  teethTables(tb, {
    sMid,
    half,
    mouthW,
    stomT: sx * f.u[0] + sy * f.u[1],
    // (pursed lips (round) stand out in front of the teeth, which sit higher behind them)
    upperDrop: mouthW * (0.01 + 0.085 * Math.max(mouth.teeth, mouth.lipBite) - 0.03 * mouth.round),
    lowerShow: mouthW * 0.06 * smoothstep(0.35, 0.85, mouth.open) * Math.min(1, 3 * mouth.teeth),
  });
  // the tongue: a dome low in the mouth once it opens; raised (l, th), its tip reaches the teeth
  const tg = Math.min(1, Math.max(0, mouth.tongue));
  let floor = -Infinity;
  for (let i = 0; i < tb.n; i++) floor = Math.max(floor, tb.tl[i]!);
  const dome = 0.32 * g.gapMax * smoothstep(0.2, 0.6, mouth.open);
  for (let i = 0; i < tb.n; i++) {
    const s = tb.s0 + i * STEP;
    const q = Math.min(1, Math.abs(s - g.sCentre) / g.halfOpen);
    tb.ks[i] = 1 - 0.78 * q ** 2.5;
    const d = (s - g.sCentre) / (0.8 * g.halfOpen);
    const top = floor - dome * Math.sqrt(Math.max(0, 1 - d * d));
    const a = (s - sMid) / (0.42 * half);
    const tip = Math.sqrt(Math.max(0, 1 - a * a));
    // (the tip rises behind the upper teeth, which hide its top)
    const tipTop = floor - Math.max(0, floor - tb.te[i]! + 1.5) * tip ** 0.6;
    tb.tt[i] = top + (Math.min(top, tipTop) - top) * tg + AA * 0.6;
    // the tongue's middle groove, a little darker
    const groove = 1 - 0.15 * Math.exp(-(((s - sMid) / (0.025 * mouthW)) ** 2));
    tb.kt[i] = (0.45 + 0.5 * tg * tip) * groove;
  }
}

type RGB = [number, number, number];

const clamp01 = (v: number): number => (v < 0 ? 0 : v > 1 ? 1 : v);

/** Table `a` at entry i + w. */
const lerp = (a: Float32Array, i: number, w: number): number => a[i]! + (a[i + 1]! - a[i]!) * w;

/**
 * Sizes of the inner mouth's shading, in mouth widths (so a bigger face shows the same mouth):
 * how far into the lips their inner edges are redrawn from the lip beyond (the photo's teeth can
 * show in the last pixel of a warped lip), and the width of the lips' shadow inside the mouth.
 */
const EDGE = 0.016;
const SHADE = 0.013;

interface Pixel {
  s: number;
  t: number;
  i: number;
  w: number;
  tu: number;
  tl: number;
  dU: number;
  dL: number;
}

/** Every pixel of the box near or inside the opening: lips and opening blended by coverage. */
function scan(f: InnerMouthFrame, origin: Vec, g: Geometry): void {
  const { out, r, u } = f;
  const { px, width, height } = out;
  const { tb } = g;
  const [x0, y0, x1, y1] = f.box;
  const shades = frameShades(f, g);
  const col: RGB = [0, 0, 0];
  const lip: RGB = [0, 0, 0];
  const p: Pixel = { s: 0, t: 0, i: 0, w: 0, tu: 0, tl: 0, dU: 0, dL: 0 };
  for (let y = Math.max(0, y0); y <= Math.min(height - 1, y1); y++)
    for (let x = Math.max(0, x0); x <= Math.min(width - 1, x1); x++) {
      const o = (y * width + x) * 4;
      const lx = x + 0.5 - origin[0];
      const ly = y + 0.5 - origin[1];
      p.s = lx * r[0] + ly * r[1];
      p.t = lx * u[0] + ly * u[1];
      const beyond = p.s < g.sMin - 0.5 || p.s > g.sMax + 0.5;
      if (beyond && px[o + 3] !== 0) continue;
      const fi = Math.min(tb.n - 1.001, Math.max(0, (p.s - tb.s0) / STEP));
      p.i = fi | 0;
      p.w = fi - p.i;
      p.tu = lerp(tb.tu, p.i, p.w);
      p.tl = lerp(tb.tl, p.i, p.w);
      p.dU = (p.t - p.tu) * lerp(tb.nu, p.i, p.w);
      p.dL = (p.tl - p.t) * lerp(tb.nl, p.i, p.w);
      if ((p.dU < -shades.edge || p.dL < -shades.edge) && px[o + 3] !== 0) continue;
      // coverage of the pixel by the upper lip, the lower lip and the opening between them
      const wU = clamp01(0.5 - p.dU / AA);
      const wL = clamp01(0.5 - p.dL / AA);
      const cov = Math.max(0, 1 - wU - wL);
      lips(col, lip, f, origin, p, shades, wU, wL);
      if (cov > 0) {
        interior(lip, f, tb, p, shades);
        col[0] += lip[0] * cov;
        col[1] += lip[1] * cov;
        col[2] += lip[2] * cov;
      }
      const sum = Math.max(1e-6, wU + wL + cov);
      px[o] = col[0] / sum;
      px[o + 1] = col[1] / sum;
      px[o + 2] = col[2] / sum;
      px[o + 3] = 255;
    }
}

/**
 * The lips' share of a pixel at the opening (`wU`, `wL`: how much of it each covers) into `col`:
 * each lip as it is `sh.edge` + 1 pixels out from its inner edge, at the pixel's place along the
 * mouth, darkening a little towards the edge where the mouth is open.
 */
function lips(
  col: RGB,
  tmp: RGB,
  f: InnerMouthFrame,
  origin: Vec,
  p: Pixel,
  sh: Shades,
  wU: number,
  wL: number,
): void {
  col[0] = col[1] = col[2] = 0;
  const dark = 0.08 + 0.2 * smoothstep(0, 2 * sh.edge, p.tl - p.tu);
  for (const [side, weight, d] of [
    [-1, wU, p.dU],
    [1, wL, p.dL],
  ] as const) {
    if (weight <= 0) continue;
    // far enough out the pixel is the lip itself
    const t = -d >= sh.edge ? p.t : side < 0 ? p.tu - sh.edge - 1 : p.tl + sh.edge + 1;
    const x = origin[0] + p.s * f.r[0] + t * f.u[0] - 0.5;
    const y = origin[1] + p.s * f.r[1] + t * f.u[1] - 0.5;
    sample(f.out, x, y, tmp);
    const k = weight * (1 - dark * Math.exp(Math.min(0, d) / sh.shade));
    col[0] += tmp[0] * k;
    col[1] += tmp[1] * k;
    col[2] += tmp[2] * k;
  }
}

/** Bilinear sample of the frame at pixel-centre coordinates (x, y). */
function sample(img: Image32, x: number, y: number, to: RGB): void {
  const cx = Math.min(img.width - 1.001, Math.max(0, x));
  const cy = Math.min(img.height - 1.001, Math.max(0, y));
  const ix = cx | 0;
  const iy = cy | 0;
  const tx = cx - ix;
  const ty = cy - iy;
  const o = (iy * img.width + ix) * 4;
  const o2 = o + img.width * 4;
  const px = img.px;
  for (let k = 0; k < 3; k++) {
    const a = px[o + k]! + (px[o + 4 + k]! - px[o + k]!) * tx;
    const b = px[o2 + k]! + (px[o2 + 4 + k]! - px[o2 + k]!) * tx;
    to[k] = a + (b - a) * ty;
  }
}

interface Shades {
  light: number;
  shadowPx: number;
  /** Light on the teeth behind pursed lips. */
  pursed: number;
  /** EDGE and SHADE in output pixels. */
  edge: number;
  shade: number;
  lowerOn: boolean;
  /** The warm dark that teeth turn to in shadow. */
  dark: readonly number[];
}

function frameShades(f: InnerMouthFrame, g: Geometry): Shades {
  const mouthW = f.rig.mouthW * f.scale;
  const c = f.colours.cavity;
  return {
    light: 0.6 + 0.4 * smoothstep(0, 0.25 * mouthW, g.gapMax),
    shadowPx: Math.max(1.2, 0.03 * mouthW),
    edge: Math.max(1.2, EDGE * mouthW),
    pursed: 1 - 0.35 * f.mouth.round,
    shade: Math.max(1, SHADE * mouthW),
    lowerOn: f.mouth.open > 0.35 && f.mouth.teeth > 0,
    // teeth in shadow: their own colour darkened, warmed a little by the mouth around them
    dark: [0, 1, 2].map((k) => Math.min(255, 0.28 * f.colours.teeth[k]! + 1.2 * c[k]!)),
  };
}

/** The opening's colour at the pixel, back to front: cavity, tongue, lower teeth, upper teeth. */
function interior(col: RGB, f: InnerMouthFrame, tb: MouthTables, p: Pixel, sh: Shades): void {
  const { colours } = f;
  const { i, w, t, tu, tl } = p;
  const ks = lerp(tb.ks, i, w);
  const v = clamp01((t - tu) / Math.max(1, tl - tu));
  const lipShade = sh.light * (1 - 0.35 * Math.exp(-Math.max(0, p.dL) / sh.edge));
  let k = ks * (0.7 + 0.3 * v) * lipShade;
  col[0] = colours.cavity[0] * k;
  col[1] = colours.cavity[1] * k;
  col[2] = colours.cavity[2] * k;
  const tt = lerp(tb.tt, i, w);
  const ct = clamp01((t - tt) / AA + 0.5);
  if (ct > 0) {
    k = lerp(tb.kt, i, w) * ks * lipShade * (0.75 + 0.25 * smoothstep(0, 2 * sh.edge, t - tt));
    mix(col, colours.tongue, k, ct);
  }
  if (sh.lowerOn) {
    const cl = clamp01((t - lerp(tb.le, i, w)) / AA + 0.5);
    if (cl > 0) {
      const lit = 0.62 * lerp(tb.kl, i, w) * (0.35 + 0.65 * ks) * lipShade * (1 - 0.3 * lerp(tb.gl, i, w));
      mixLit(col, sh.dark, colours.teeth, lit, cl);
    }
  }
  const te = lerp(tb.te, i, w);
  // (a hairline parting shows no teeth: only the dark between the lips)
  const ce = clamp01((te - t) / AA + 0.5) * smoothstep(0.5, 2.5, tl - tu);
  if (ce > 0) {
    const depth = Math.max(0, t - tu);
    // the teeth's visible height here (to the edge's arc) and how far down them the pixel is
    const tall = Math.max(1, lerp(tb.ta, i, w) - tu);
    const vv = clamp01(depth / tall);
    // the teeth stand at the front, lit from outside the mouth (a narrow opening dims them less)
    let lit = lerp(tb.ku, i, w) * (0.3 + 0.7 * ks) * (0.75 + 0.25 * sh.light) * sh.pursed;
    // the upper lip's shadow at the top; the gaps show towards the biting edge only, and not at
    // all on a sliver of teeth (they would read as ruled lines)
    const shadow = Math.min(sh.shadowPx, 0.35 * tall);
    const gap = lerp(tb.gu, i, w) * 0.3 * smoothstep(0.35, 1, vv) * smoothstep(2, 6, tall);
    // (and the biting edge is a little translucent)
    lit *= (0.55 + 0.45 * smoothstep(0, shadow, depth)) * (1 - gap) * (1 - 0.08 * smoothstep(0.6, 1, vv));
    if (te - t < sh.edge) lit *= 0.9; // the biting edge is thin and lets the dark through
    mixLit(col, sh.dark, colours.teeth, lit, ce);
  }
}

/** col = col + (dark + (colour − dark)·lit − col)·a: a surface lit by `lit`, its shadow warm. */
function mixLit(col: RGB, dark: readonly number[], colour: readonly number[], lit: number, a: number): void {
  for (let k = 0; k < 3; k++) {
    const c = dark[k]! + (colour[k]! - dark[k]!) * lit;
    col[k] = col[k]! + (c - col[k]!) * a;
  }
}

/** col = col + (colour·k − col)·a */
function mix(col: RGB, colour: readonly number[], k: number, a: number): void {
  col[0] = col[0] + (colour[0]! * k - col[0]) * a;
  col[1] = col[1] + (colour[1]! * k - col[1]) * a;
  col[2] = col[2] + (colour[2]! * k - col[2]) * a;
}
