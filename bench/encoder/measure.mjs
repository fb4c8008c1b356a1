// The encoder benchmark's cases (run.mjs says what it measures). Each case streams N frames at
// 25 fps from an RTCVideoSource to a receiver in this process after 50 frames to settle; the
// receiver's RTCVideoSink hands back every decoded frame, compared with the last frames sent (the
// best match of the last six: a frame is decoded a few frames after it was sent).
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import wrtc from '@roamhq/wrtc';
import { BUILTIN_AVATARS_DIR, readAvatarPacks } from '../../packages/engine/dist/avatar/catalog.js';
import { createAnimator } from '../../packages/engine/dist/animation/animator.js';
import { MOUTH_SHAPES } from '../../packages/engine/dist/lipsync/mouth-shapes.js';
import { createAvatarRenderer } from '../../packages/engine/dist/render/avatar-renderer.js';
import { preferCodec } from '../../packages/engine/dist/rtc/sdp.js';
import { loopbackPeers, outboundVideo, threadCpu } from '../lib/loopback-peers.mjs';
import { videoBenchPack } from '../lib/video-pack.mjs';
import { realClip } from '../video-real/real-clip.mjs';

const { values } = parseArgs({
  options: { frames: { type: 'string', default: '250' }, smoke: { type: 'boolean', default: false } },
});
const N = values.smoke ? 15 : Number(values.frames);
const SETTLE = values.smoke ? 10 : 50;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const shapes = ['X', 'B', 'C', 'D', 'E', 'F', 'A', 'G', 'H'].map((v) => MOUTH_SHAPES[v]);

/** The answer with `x-google-max-bitrate` (and a start no higher) on the video codec `codec`. */
function capped(sdp, codec, kbps) {
  const lines = sdp.split('\r\n');
  const pt = lines.map((l) => new RegExp(`^a=rtpmap:(\\d+) ${codec}/90000`).exec(l)?.[1]).find(Boolean);
  const param = `x-google-max-bitrate=${kbps};x-google-start-bitrate=${Math.min(kbps, 1000)}`;
  const i = lines.findIndex((l) => l.startsWith(`a=fmtp:${pt} `));
  if (i >= 0) lines[i] += `;${param}`;
  else lines.splice(lines.findIndex((l) => l.startsWith(`a=rtpmap:${pt} `)) + 1, 0, `a=fmtp:${pt} ${param}`);
  return lines.join('\r\n');
}

/** PSNR of two luma planes, dB (99 for identical). */
function psnrY(a, b, pixels) {
  let se = 0;
  for (let i = 0; i < pixels; i++) {
    const d = a[i] - b[i];
    se += d * d;
  }
  return se === 0 ? 99 : 10 * Math.log10((255 * 255 * pixels) / se);
}

/** Frames of a rendered avatar pack: the k-th rendered frame as I420 (mouth every third frame). */
async function avatarContent({ manifest, dir }, width, height) {
  const r = createAvatarRenderer(manifest, { width, height }, dir);
  // a video pack's base frames are scaled to the output size one per timer turn: let them be
  await sleep(manifest.render === 'video' ? 6000 : 300);
  const anim = createAnimator({ seed: 1 });
  return {
    id: manifest.id,
    frame(k) {
      const state = {
        mouth: shapes[Math.floor(k / 3) % shapes.length],
        motion: anim.next({ tMs: k * 40, speaking: true, emphasis: (k % 7) / 7 }),
        speaking: true,
      };
      const i420 = new Uint8Array((width * height * 3) / 2);
      if (r.renderI420) r.renderI420(state, i420);
      else
        wrtc.nonstandard.rgbaToI420({ width, height, data: r.render(state) }, { width, height, data: i420 });
      return i420;
    },
    close: () => r.close(),
  };
}

/**
 * The real clip's first frames (camera noise, a real face and beard), a 720² square around the
 * head of its 1080×1920 frames scaled to the size, decoded by ffmpeg to I420.
 */
function realContent(width, height, count) {
  const clip = realClip();
  const out = spawnSync(
    'ffmpeg',
    [
      ...['-v', 'error', '-i', clip.file, '-frames:v', String(count)],
      ...[
        '-vf',
        `crop=720:720:180:60,scale=${width}:${height}`,
        '-pix_fmt',
        'yuv420p',
        '-f',
        'rawvideo',
        'pipe:1',
      ],
    ],
    { maxBuffer: 1 << 30 },
  );
  if (out.status !== 0) throw new Error(`ffmpeg could not decode ${clip.file}: ${String(out.stderr).trim()}`);
  const size = (width * height * 3) / 2;
  const frames = Array.from(
    { length: Math.floor(out.stdout.length / size) },
    (_, k) => new Uint8Array(out.stdout.subarray(k * size, (k + 1) * size)), // own buffers: libwebrtc takes no views
  );
  return { id: 'real clip', frame: (k) => frames[k % frames.length], close: () => {} };
}

async function measure(content, { codec = 'VP8', kbps = 0, repeat = 1, width = 512, height = 512 }) {
  const c =
    content === 'real' ? realContent(width, height, N + SETTLE) : await avatarContent(content, width, height);
  const source = new wrtc.nonstandard.RTCVideoSource({ needsDenoising: false });
  const track = source.createTrack();
  const { tx, rx } = await loopbackPeers(track, {
    offer: (sdp) => preferCodec(sdp, 'video', codec),
    answer: (sdp) => (kbps ? capped(sdp, codec, kbps) : sdp),
  });
  const sink = new wrtc.nonstandard.RTCVideoSink(
    rx.getReceivers().find((x) => x.track.kind === 'video').track,
  );
  const sent = [];
  const psnrs = [];
  let measuring = false;
  sink.onframe = ({ frame }) => {
    if (!measuring || frame.width !== width || frame.height !== height) return;
    psnrs.push(Math.max(...sent.map((s) => psnrY(frame.data, s, width * height))));
  };
  let cpu0, enc0;
  const t0 = performance.now();
  let i420;
  for (let n = 0; n < N + SETTLE; n++) {
    if (n === SETTLE) {
      cpu0 = threadCpu();
      enc0 = await outboundVideo(tx);
      measuring = true;
    }
    if (n % repeat === 0) {
      i420 = c.frame(n / repeat);
      sent.push(i420);
      if (sent.length > 6) sent.shift();
    }
    source.onFrame({ width, height, data: i420 });
    await sleep(Math.max(0, t0 + (n + 1) * 40 - performance.now()));
  }
  const cpu1 = threadCpu();
  const enc1 = await outboundVideo(tx);
  await sleep(200);
  measuring = false;
  sink.stop();
  track.stop();
  tx.close();
  rx.close();
  c.close();
  psnrs.sort((a, b) => a - b);
  const encoded = enc1.framesEncoded - enc0.framesEncoded;
  return {
    content: c.id,
    codec,
    width,
    height,
    capKbps: kbps || null,
    repeat,
    encoderCpuMs: +((cpu1.encoder - cpu0.encoder) / N).toFixed(2),
    corePercentAt25fps: +(((cpu1.encoder - cpu0.encoder) / N) * 2.5).toFixed(1),
    kbps: Math.round(((enc1.bytesSent - enc0.bytesSent) * 8) / (N * 40)),
    meanQp: encoded > 0 ? +((enc1.qpSum - enc0.qpSum) / encoded).toFixed(1) : null,
    framesDecoded: psnrs.length,
    psnrMean: psnrs.length ? +(psnrs.reduce((a, b) => a + b, 0) / psnrs.length).toFixed(2) : null,
    psnrP5: psnrs.length ? +psnrs[Math.floor(psnrs.length * 0.05)].toFixed(2) : null,
  };
}

const amara = readAvatarPacks([BUILTIN_AVATARS_DIR]).packs.find((p) => p.manifest.id === 'amara');
const cases = values.smoke
  ? [
      [amara, {}],
      [amara, { repeat: 3 }],
      ['real', {}],
    ]
  : [
      [amara, {}],
      [amara, { repeat: 3 }],
      [amara, { kbps: 500 }],
      [amara, { kbps: 300 }],
      [amara, { codec: 'VP9' }],
      [amara, { codec: 'AV1' }],
      [amara, { width: 1280, height: 720 }],
      [await videoBenchPack('video', {}), {}],
      ['real', {}],
      ['real', { kbps: 500 }],
      ['real', { kbps: 300 }],
    ];
console.log(
  `encoder benchmark: ${N} frames per case at 25 fps, libwebrtc's encoders (@roamhq/wrtc), received in this process`,
);
console.log(
  'content   codec  size        cap kbps  sent ×  encoder CPU ms/frame  % of a core  kbit/s  mean QP  decoded  PSNR mean / p5 dB',
);
const results = [];
for (const [pack, o] of cases) {
  const row = await measure(pack, o);
  results.push(row);
  console.log(
    `${row.content.padEnd(9)} ${row.codec.padEnd(6)} ${`${row.width}x${row.height}`.padEnd(10)} ${String(row.capKbps ?? '–').padStart(8)}  ${String(row.repeat).padStart(6)}  ${row.encoderCpuMs.toFixed(2).padStart(20)}  ${row.corePercentAt25fps.toFixed(1).padStart(11)}  ${String(row.kbps).padStart(6)}  ${String(row.meanQp).padStart(7)}  ${String(row.framesDecoded).padStart(7)}  ${row.psnrMean} / ${row.psnrP5}`,
  );
}
console.log(
  "(encoder CPU: the EncoderQueue thread's CPU time per frame handed over; % of a core: that at 25 fps; sent ×: each rendered frame handed to the encoder that many times, as the engine sends an unchanged frame again; PSNR: luma, each decoded frame against the best match of the last six sent)",
);
console.log(JSON.stringify({ bench: 'encoder', frames: N, results }));
process.exit(0); // libwebrtc can crash at a natural exit
