/**
 * The page side of the Chromium spot-check (chromium-spot.ts), run by page.evaluate() in an
 * integrator's SDK page: the probe (peer connections kept, the events channel's binary messages
 * counted, drawing on the SDK's canvas counted in passes), a client-rendered session started and
 * set speaking, and the probe's counters read.
 */
import type { PageSessionArgs } from '../lib/page-session.js';

/** What a page's probe returns (cumulative counters). */
export interface PageStats {
  /** The page's clock when read (performance.now()). */
  atMs: number;
  drawn: number;
  animFrames: number;
  fallback: string;
  packetsReceived: number;
  packetsLost: number;
  concealedSamples: number;
  totalSamplesReceived: number;
  totalAudioEnergy: number;
  jitterBufferDelay: number;
  jitterBufferEmittedCount: number;
  videoEntries: number;
  videoPackets: number;
}

/**
 * The probe, before the SDK runs: peer connections kept, and drawing calls on the watched canvas
 * counted in passes (the first call of a synchronous run counts; the next microtask ends the run).
 */
export function installProbe(): void {
  const w = window as any;
  const spot = { canvas: null as unknown, drawn: 0, inPass: false, fallback: '', animFrames: 0 };
  w.mpSpot = spot;
  w.pcs = [];
  const Original = RTCPeerConnection;
  w.RTCPeerConnection = class extends Original {
    constructor(c?: RTCConfiguration) {
      super(c);
      w.pcs.push(this);
    }
    // the animation frames that reached the page: binary messages on its channels (frames, or events)
    override createDataChannel(label: string, init?: RTCDataChannelInit): RTCDataChannel {
      const channel = super.createDataChannel(label, init);
      channel.addEventListener('message', (e) => {
        if (typeof e.data !== 'string') spot.animFrames++;
      });
      return channel;
    }
  };
  const hooks: Array<[any, string[]]> = [
    [
      CanvasRenderingContext2D.prototype,
      ['drawImage', 'putImageData', 'fill', 'fillRect', 'stroke', 'clearRect'],
    ],
    [globalThis.WebGLRenderingContext?.prototype, ['drawArrays', 'drawElements']],
    [globalThis.WebGL2RenderingContext?.prototype, ['drawArrays', 'drawElements']],
  ];
  for (const [proto, names] of hooks)
    for (const name of proto ? names : []) {
      const original = proto[name] as (...a: unknown[]) => unknown;
      proto[name] = function (this: { canvas: unknown }, ...args: unknown[]) {
        if (this.canvas === spot.canvas && !spot.inPass) {
          spot.inPass = true;
          spot.drawn++;
          queueMicrotask(() => (spot.inPass = false));
        }
        return original.apply(this, args);
      };
    }
}

/** Starts a client-rendered session in the page and its two long turns; '' or what went wrong. */
export async function startPageSession(a: PageSessionArgs): Promise<string> {
  const w = window as any;
  const s = new w.Mouthpiece.AvatarSession({
    baseUrl: a.baseUrl,
    credential: a.credential,
    logLevel: 'warn',
    render: 'client',
  });
  let drawn = false;
  s.on('videoReady', () => (drawn = true));
  s.on('renderFallback', (e: { reason: string }) => (w.mpSpot.fallback = e.reason));
  await s.createSession({ avatarId: a.avatarId, voiceId: a.voiceId, videoContainerId: 'avatar' });
  const until = performance.now() + 15000;
  while (performance.now() < until && !drawn) await new Promise((r) => setTimeout(r, 50));
  if (!drawn) return 'no frame drawn in 15 s';
  w.mp = s;
  w.mpSpot.canvas = document.querySelector('#avatar canvas');
  for (const turnId of ['t0', 't1']) await s.sayText(a.text, turnId);
  return '';
}

/** The probe's counters now: draw passes and the last peer connection's inbound RTP. */
export async function pageStats(): Promise<PageStats> {
  const w = window as any;
  const out: PageStats = {
    atMs: performance.now(),
    drawn: w.mpSpot.drawn,
    animFrames: w.mpSpot.animFrames,
    fallback: w.mpSpot.fallback,
    packetsReceived: 0,
    packetsLost: 0,
    concealedSamples: 0,
    totalSamplesReceived: 0,
    totalAudioEnergy: 0,
    jitterBufferDelay: 0,
    jitterBufferEmittedCount: 0,
    videoEntries: 0,
    videoPackets: 0,
  };
  const pc = (w.pcs as RTCPeerConnection[]).at(-1);
  (await pc?.getStats())?.forEach((x: any) => {
    if (x.type === 'inbound-rtp' && x.kind === 'audio')
      for (const k of [
        'packetsReceived',
        'packetsLost',
        'concealedSamples',
        'totalSamplesReceived',
        'totalAudioEnergy',
        'jitterBufferDelay',
        'jitterBufferEmittedCount',
      ] as const)
        out[k] = x[k] ?? 0;
    if (x.type === 'inbound-rtp' && x.kind === 'video') {
      out.videoEntries++;
      out.videoPackets += x.packetsReceived ?? 0;
    }
  });
  return out;
}
