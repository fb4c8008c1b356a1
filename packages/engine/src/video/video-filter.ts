/**
 * The filter chain of every decode pass of the video import (video/ffmpeg.ts), in one place so
 * that every pass places frame k at the same instant and sees the same picture:
 *
 * 1. `fps` on the stream's own timestamps (ffmpeg keeps them: -copyts) from the stream's first
 *    timestamp, so a pass that starts at a key frame numbers its frames as one from the start;
 *    `trim` then drops the frames before the one wanted. Any rate, also a variable one, comes out
 *    at the pack's rate: each frame is the picture on screen at its instant.
 * 2. Square pixels (a clip whose pixels are not square is scaled to its displayed shape).
 * 3. The crop square around the face scaled to the pack's size, or the whole frame scaled down:
 *    work is done on the small picture from here on.
 * 4. HDR (PQ, HLG) tone-mapped to SDR BT.709 on the small picture: zscale to linear light with
 *    HDR's reference white (BT.2408: 203 cd/m²) as SDR's white, Möbius's curve (linear up to half
 *    of white, highlights up to 4× white rolled off; Hable's curve darkened skin by ~20 grey
 *    levels), back to BT.709. BT.2020 SDR colours are converted to BT.709. Without zscale (an
 *    ffmpeg built without libzimg) the colours are left as they are.
 *
 * The picture is upright before this chain: ffmpeg applies the display matrix itself.
 */
import type { FrameOptions } from './ffmpeg.js';

export function videoFilter(o: FrameOptions, zscale: boolean): string {
  const start = o.clip ? `:start_time=${o.clip.startS.toFixed(6)}` : '';
  const parts = o.keyFrameNearS === undefined ? [`fps=fps=${o.fps}${start}`] : [];
  const from = o.fromFrame ?? 0;
  if (from > 0) parts.push(`trim=start_frame=${from}`);
  parts.push(...squarePixels(o), ...scaling(o), ...colours(o, zscale));
  return parts.join(',') || 'null';
}

function squarePixels(o: FrameOptions): string[] {
  const c = o.clip;
  if (!c?.codedWidth || !c.codedHeight) return [];
  const turned = c.rotation === 90 || c.rotation === 270;
  const [w, h] = turned ? [c.codedHeight, c.codedWidth] : [c.codedWidth, c.codedHeight];
  if (w === c.width && h === c.height) return [];
  return [`scale=${c.width}:${c.height}:flags=bicubic`, 'setsar=1'];
}

function scaling(o: FrameOptions): string[] {
  if (o.crop && o.size) {
    const side = Math.round(o.crop.side);
    return [
      `crop=${side}:${side}:${Math.round(o.crop.x)}:${Math.round(o.crop.y)}:exact=1`,
      `scale=${o.size}:${o.size}:flags=bicubic`,
    ];
  }
  if (o.maxSide && o.clip) {
    const { width, height } = fitted(o.clip.width, o.clip.height, o.maxSide);
    return width === o.clip.width && height === o.clip.height
      ? []
      : [`scale=${width}:${height}:flags=bicubic`];
  }
  if (o.maxSide)
    return [
      `scale='if(gt(iw,ih),min(iw,${o.maxSide}),-2)':'if(gt(iw,ih),-2,min(ih,${o.maxSide}))':flags=bicubic`,
    ];
  return [];
}

/** The whole frame fitted within maxSide (even sides when scaled), as outputSize answers. */
export function fitted(width: number, height: number, maxSide: number): { width: number; height: number } {
  if (Math.max(width, height) <= maxSide) return { width, height };
  const even = (v: number): number => Math.max(2, 2 * Math.round(v / 2));
  return width >= height
    ? { width: maxSide, height: even((height * maxSide) / width) }
    : { width: even((width * maxSide) / height), height: maxSide };
}

function colours(o: FrameOptions, zscale: boolean): string[] {
  const c = o.clip;
  if (!zscale || !c || (!c.hdr && !c.wideGamut)) return [];
  if (!c.hdr) return ['zscale=p=bt709:t=bt709:m=bt709:r=tv', 'format=yuv444p'];
  return [
    'zscale=t=linear:npl=203',
    'format=gbrpf32le',
    'zscale=p=bt709',
    'tonemap=tonemap=mobius:param=0.5:peak=4:desat=0',
    'zscale=t=bt709:m=bt709:r=tv',
    'format=yuv444p',
  ];
}
