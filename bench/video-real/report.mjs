// bench:video-real's held-out scores inside the face mask and its report: a table of each figure
// beside the clip's own, its target and pass/fail, then one JSON line.
import { SSIM_WINDOW, mad, pearson, ssim } from '../video-avatar/compare.mjs';
import { MASK_DILATE_PX, dilate, fillPolygon } from './face-regions.mjs';

/** The face mask of the pack's canonical landmarks, in its lower-face box (box.width × height). */
export function maskInBox(index) {
  const { x, y, width, height } = index.library.box;
  const lm = index.canonical.landmarks;
  const pts = [...lm.slice(0, 17), lm[27]].map(([px, py]) => [px - x, py - y]);
  return dilate(fillPolygon(pts, width, height), width, height, MASK_DILATE_PX);
}

/** SSIM and MAD of luma inside the mask and the opening's r, made frame k against real k + shift. */
function scoreInMask(real, made, box, inside, shift = 0) {
  const pick = (plane) => plane.filter((_, i) => inside[i]);
  let s = 0;
  let d = 0;
  const n = Math.min(made.length, real.length - shift);
  for (let k = 0; k < n; k++) {
    const r = real[k + shift];
    s += ssim(made[k].y, r.y, box.width, box.height, SSIM_WINDOW, inside);
    d += mad(pick(made[k].y), pick(r.y));
  }
  return {
    ssim: s / n,
    mad: d / n,
    openingR: pearson(
      made.slice(0, n).map((f) => f.open),
      real.slice(shift, shift + n).map((f) => f.open),
    ),
    frames: n,
  };
}

/** Held-out rows: the video avatar, the photo avatar, and the real next frame (a ceiling). */
export function heldOutRows(real, video, photo, index) {
  const box = index.library.box;
  const inside = maskInBox(index);
  return {
    video: scoreInMask(real, video, box, inside),
    photo: scoreInMask(real, photo, box, inside),
    ceiling: scoreInMask(real, real, box, inside, 1),
  };
}

const fmt = (v, d = 2) => (Number.isFinite(v) ? v.toFixed(d) : 'n/a');
const round = (v, d = 3) => (Number.isFinite(v) ? +v.toFixed(d) : null);

/** The figures: [name, made, own, ratio, target, pass]. */
function figures(r) {
  const rows = [];
  for (const [path, m] of [
    ['say-text', r.sayText],
    ['say-audio', r.sayAudio],
  ]) {
    rows.push(
      [
        `${path}: outside face+neck max |Δ| vs base`,
        m.outsideMax,
        r.own.outsideNextMedian,
        NaN,
        '≤ 1',
        m.outsideMax <= 1,
      ],
      [
        `${path}: outside face+neck, share |ΔY| > 1`,
        m.outsideShareOver1,
        NaN,
        NaN,
        '0',
        m.outsideShareOver1 === 0,
      ],
      [`${path}: at rest, max |Δ| vs base`, m.idleWholeMax, 0, NaN, '≤ 1', !(m.idleWholeMax > 1)],
      [
        `${path}: seam at the mask boundary`,
        m.seam,
        m.seamBase,
        m.seam / m.seamBase,
        'ratio ≤ 1.2',
        m.seam / m.seamBase <= 1.2,
      ],
      [
        `${path}: ghost edges below the jaw`,
        m.ghost,
        r.own.ghost,
        m.ghost / r.own.ghost,
        'ratio ≤ 1.2',
        m.ghost / r.own.ghost <= 1.2,
      ],
      [
        `${path}: jaw band edges changed`,
        m.ghostChange,
        r.own.ghostChange,
        m.ghostChange / r.own.ghostChange,
        'ratio ≤ 1.2',
        m.ghostChange / r.own.ghostChange <= 1.2,
      ],
      [
        `${path}: lower-face motion`,
        m.motion,
        r.own.motion,
        m.motion / r.own.motion,
        'ratio 0.7–1.3',
        Math.abs(m.motion / r.own.motion - 1) <= 0.3,
      ],
    );
  }
  const t = r.sayText;
  rows.push(
    [
      'say-text: mouth opening, max',
      t.openMax,
      r.own.openMax,
      t.openMax / r.own.openMax,
      '≤ own max',
      t.openMax <= r.own.openMax,
    ],
    [
      'say-text: mouth opening, mean',
      t.openMean,
      r.own.openMean,
      t.openMean / r.own.openMean,
      '(moves)',
      t.openMean > 0,
    ],
    [
      'say-text: dark area in the lips, max',
      t.darkMax,
      r.own.darkMax,
      t.darkMax / r.own.darkMax,
      '≤ own max',
      t.darkMax <= r.own.darkMax,
    ],
  );
  const { video: v, photo: p } = r.heldOut;
  rows.push(
    ['held-out: SSIM in mask (vs photo)', v.ssim, p.ssim, v.ssim / p.ssim, 'video > photo', v.ssim > p.ssim],
    ['held-out: MAD in mask (vs photo)', v.mad, p.mad, v.mad / p.mad, 'video < photo', v.mad < p.mad],
    [
      'held-out: opening r (vs photo)',
      v.openingR,
      p.openingR,
      v.openingR / p.openingR,
      'video > photo',
      v.openingR > p.openingR,
    ],
  );
  return rows;
}

export function report(r) {
  const rows = figures(r);
  console.log(
    `video-real benchmark${r.smoke ? ' (smoke)' : ''}: the real clip (${r.clip.frames} frames at ${r.clip.fps} fps, speech in ${fmt(100 * r.clip.speechFraction, 0)} % of them), its first ${r.clip.split} frames imported as a video avatar (${r.baseFrames} base frames, ${r.import.importSeconds} s); say-text ${r.sayText.frames} frames (${r.sayText.speakingFrames} speaking), say-audio ${r.sayAudio.frames} (${r.sayAudio.speakingFrames}); the clip's own ${r.own.frames} frames (${r.own.speakingFrames} speaking)`,
  );
  console.log(
    `${'figure'.padEnd(40)} ${'avatar'.padStart(8)} ${'own'.padStart(8)} ${'ratio'.padStart(6)}  ${'target'.padEnd(14)} result`,
  );
  for (const [name, made, own, ratio, target, pass] of rows)
    console.log(
      `${name.padEnd(40)} ${fmt(made, 3).padStart(8)} ${fmt(own, 3).padStart(8)} ${fmt(ratio).padStart(6)}  ${target.padEnd(14)} ${pass ? 'pass' : 'FAIL'}`,
    );
  const c = r.heldOut.ceiling;
  console.log(
    `(512 px frames in the pack's crop. Face mask: the jaw contour 0–16 closed over the nose bridge (27), grown 4 px, from landmarks tracked on the base frame \`renderer.pick\` named (a twin renderer given the same states); "outside" is outside it and the neck band under the jaw (jaw 3–13 pushed out along its normal by 0.45 of the jaw's width), which the composite moves with the chin, grown 8 px, on the tracked landmarks and on the pack's own (video.json) alike. "own" is the same measure on the clip's own frames: for "outside", the median of the largest luma change outside that region from one clip frame to the next, a scale; for the seam, the base frame itself at the same ring (±2 px of the mask boundary, mean Sobel magnitude); ghost edges: mean Sobel magnitude in the band from the jaw line (2–14) down by a fifth of the eye distance, below the base frame's jaw for the avatar and each speaking frame's own jaw for the clip; edges changed: mean |ΔSobel| in that band, the output against its base frame, the clip's frames against the previous one; motion: mean |ΔY| from frame to frame in the lower face (jaw 3–13 to the nose tip) while speaking; mouth: inner-lip gap / eye distance, and inner-lip pixels under half the lower face's median luma / eye distance², on landmarks tracked on the output. Held-out: ${r.heldOut.video.frames} frames aligned by their own landmarks to the pack's canonical frame, inside the face mask of its landmarks (${r.maskPixels} px of the lower-face box); the real next frame scores SSIM ${fmt(c.ssim, 3)}, MAD ${fmt(c.mad)}, r ${fmt(c.openingR, 3)}.)`,
  );
  console.log(
    JSON.stringify({
      bench: 'video-real',
      smoke: r.smoke,
      clip: r.clip,
      import: r.import,
      baseFrames: r.baseFrames,
      figures: rows.map(([name, made, own, ratio, target, pass]) => ({
        name,
        avatar: round(made, 4),
        own: round(own, 4),
        ratio: round(ratio),
        target,
        pass,
      })),
      sayText: r.sayText,
      sayAudio: r.sayAudio,
      own: r.own,
      heldOut: r.heldOut,
      passed: rows.filter((row) => row[5]).length,
      of: rows.length,
      seconds: r.seconds,
    }),
  );
}
