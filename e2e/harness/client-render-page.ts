/**
 * The page side of the client-rendering e2e (e2e/client-render.e2e.test.ts): an integrator's page
 * with the SDK (optionally without WebGL), a client-rendered session started in it, and one spoken
 * then interrupted sentence measured on every display frame — the mouth box's luminance histogram
 * (which a head sway or a footage shift inside the box leaves alone, and a mouth that opens or
 * closes changes), the audio level heard through the SDK's audio element, and the RTP counters.
 */
import type { Page } from 'playwright-core';
import type { TestBrowser } from './browser.js';
import type { TestServer } from './server.js';

/** A box in the avatar's own pixels (`of` wide), scaled to the canvas in the page. */
export interface MouthBox {
  x: number;
  y: number;
  w: number;
  h: number;
  of: number;
}

export interface Sample {
  /** 16-bin luminance histogram of the mouth box (shares of the box). */
  hist: number[];
  /** RMS of the last ~10 ms of audio heard. */
  rms: number;
  phase: 'idle' | 'speaking' | 'interrupted';
}

export interface SpeechRun {
  samples: Sample[];
  peak: number;
  before: RtpCounts;
  during: RtpCounts;
  after: RtpCounts;
  videoElements: number;
  canvasCss: number[];
  canvasSize: number[];
  log: string[];
}

export interface RtpCounts {
  samplesReceived: number;
  videoEntries: number;
  videoPackets: number;
}

/** Every canvas answers null for WebGL, as in a browser with WebGL turned off. */
const NO_WEBGL = `const original = HTMLCanvasElement.prototype.getContext;
HTMLCanvasElement.prototype.getContext = function (type, ...rest) {
  return /webgl/.test(type) ? null : original.call(this, type, ...rest);
};`;

/** The integrator's page (a 256×256 `#avatar`) at a device pixel ratio, its peer connections kept. */
export async function clientPage(
  browser: TestBrowser,
  server: TestServer,
  o: { dpr?: number; webgl?: boolean } = {},
): Promise<Page> {
  const page = await browser.context.newPage();
  if (o.webgl === false) await page.addInitScript({ content: NO_WEBGL });
  await page.goto(`${server.url}/healthz`);
  await page.setContent('<html><body><div id="avatar" style="width:256px;height:256px"></div></body></html>');
  await page.addScriptTag({ url: `${server.url}/sdk/mouthpiece.js` });
  if (o.dpr && o.dpr !== 1) {
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Emulation.setDeviceMetricsOverride', {
      width: 800,
      height: 600,
      deviceScaleFactor: o.dpr,
      mobile: false,
    });
  }
  await page.evaluate(() => {
    const w = window as any;
    w.pcs = [];
    const Original = RTCPeerConnection;
    w.RTCPeerConnection = class extends Original {
      constructor(c?: RTCConfiguration) {
        super(c);
        w.pcs.push(this);
      }
    };
  });
  return page;
}

/** Starts a client-rendered session in the page (window.s, window.log); waits for its first frame. */
export async function startClientSession(
  page: Page,
  server: TestServer,
  avatarId: string,
): Promise<string[]> {
  return page.evaluate(
    async ({ baseUrl, credential, avatarId }) => {
      const w = window as any;
      const s = new w.Mouthpiece.AvatarSession({ baseUrl, credential, logLevel: 'warn', render: 'client' });
      const log: string[] = [];
      w.s = s;
      w.log = log;
      s.on('connectionChange', (x: string) => log.push(`conn:${x}`));
      s.on('videoReady', (e: { width: number; height: number }) =>
        log.push(`videoReady:${e.width}x${e.height}`),
      );
      s.on('renderFallback', (e: { reason: string }) => log.push(`fallback:${e.reason}`));
      s.on('speakingStart', () => log.push('start'));
      s.on('speakingEnd', (e: { interrupted: boolean }) => log.push(`end:${e.interrupted}`));
      await s.createSession({ avatarId, voiceId: 'en-us-female', videoContainerId: 'avatar' });
      const until = performance.now() + 15000;
      while (
        performance.now() < until &&
        !(log.includes('conn:CONNECTED') && log.some((l) => l.startsWith('videoReady')))
      )
        await new Promise((r) => setTimeout(r, 50));
      return log;
    },
    { baseUrl: server.url, credential: server.secret, avatarId },
  );
}

/** The inbound RTP counters of the page's last peer connection. */
export async function rtpCounts(page: Page): Promise<RtpCounts> {
  return page.evaluate(async () => {
    const out = { samplesReceived: 0, videoEntries: 0, videoPackets: 0 };
    (await ((window as any).pcs as RTCPeerConnection[]).at(-1)!.getStats()).forEach((x: any) => {
      if (x.type === 'inbound-rtp' && x.kind === 'audio') out.samplesReceived = x.totalSamplesReceived ?? 0;
      if (x.type === 'inbound-rtp' && x.kind === 'video') {
        out.videoEntries++;
        out.videoPackets += x.packetsReceived ?? 0;
      }
    });
    return out;
  });
}

/**
 * 1 s idle, a long sentence spoken for 1.8 s, interrupted, then 1.2 s more; the mouth box's
 * histogram and the audio level sampled on every display frame; the session ended after.
 */
export async function speakAndInterrupt(page: Page, box: MouthBox): Promise<SpeechRun> {
  return page.evaluate(async (box) => {
    const w = window as any;
    const s = w.s;
    const log: string[] = w.log;
    const canvas = document.querySelector('#avatar canvas') as HTMLCanvasElement;
    const audio = document.querySelector('#avatar audio') as HTMLAudioElement;
    const wait = async (pred: () => boolean, ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end && !pred()) await new Promise((res) => setTimeout(res, 20));
    };
    const rtp = async () => {
      const out = { samplesReceived: 0, videoEntries: 0, videoPackets: 0 };
      (await (w.pcs as RTCPeerConnection[]).at(-1)!.getStats()).forEach((x: any) => {
        if (x.type === 'inbound-rtp' && x.kind === 'audio') out.samplesReceived = x.totalSamplesReceived ?? 0;
        if (x.type === 'inbound-rtp' && x.kind === 'video') {
          out.videoEntries++;
          out.videoPackets += x.packetsReceived ?? 0;
        }
      });
      return out;
    };
    // the mouth box in canvas pixels, read through a 2D canvas (the photo's canvas is WebGL)
    const k = canvas.width / box.of;
    const [bx, by, bw, bh] = [box.x * k, box.y * k, box.w * k, box.h * k].map(Math.round) as [
      number,
      number,
      number,
      number,
    ];
    const scratch = document.createElement('canvas');
    scratch.width = bw;
    scratch.height = bh;
    const sctx = scratch.getContext('2d', { willReadFrequently: true })!;
    const ac = new AudioContext();
    const analyser = ac.createAnalyser();
    analyser.fftSize = 512; // ~10 ms at 48 kHz
    ac.createMediaStreamSource(audio.srcObject as MediaStream).connect(analyser);
    await ac.resume();
    const buf = new Float32Array(analyser.fftSize);
    const samples: Array<{ hist: number[]; rms: number; phase: 'idle' | 'speaking' | 'interrupted' }> = [];
    let phase: 'idle' | 'speaking' | 'interrupted' = 'idle';
    let peak = 0;
    s.on('speakingStart', () => (phase = 'speaking'));
    s.on('speakingEnd', (e: { interrupted: boolean }) => (phase = e.interrupted ? 'interrupted' : 'idle'));
    let sampling = true;
    const sample = () => {
      sctx.clearRect(0, 0, bw, bh);
      sctx.drawImage(canvas, bx, by, bw, bh, 0, 0, bw, bh);
      const d = sctx.getImageData(0, 0, bw, bh).data;
      const hist = new Array<number>(16).fill(0);
      for (let i = 0; i < d.length; i += 4)
        hist[Math.min(15, Math.floor((0.299 * d[i]! + 0.587 * d[i + 1]! + 0.114 * d[i + 2]!) / 16))]!++;
      analyser.getFloatTimeDomainData(buf);
      const rms = Math.sqrt(buf.reduce((a, v) => a + v * v, 0) / buf.length);
      peak = Math.max(peak, rms);
      samples.push({ hist: hist.map((n) => n / (bw * bh)), rms, phase });
      if (sampling) requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
    await new Promise((res) => setTimeout(res, 1000)); // idle
    const before = await rtp();
    await s.sayText(
      'This is a long sentence for the browser to draw, with many words that open and close the mouth, and it will be interrupted.',
      'long',
    );
    await wait(() => log.includes('start'), 15000);
    await new Promise((res) => setTimeout(res, 1800)); // speaking
    const during = await rtp();
    await s.interrupt();
    await wait(() => log.includes('end:true'), 5000);
    await new Promise((res) => setTimeout(res, 1200)); // after the interrupt
    sampling = false;
    const after = await rtp();
    const result = {
      samples,
      peak,
      before,
      during,
      after,
      videoElements: document.querySelectorAll('#avatar video').length,
      canvasCss: [canvas.clientWidth, canvas.clientHeight],
      canvasSize: [canvas.width, canvas.height],
      log: [...log],
    };
    await s.endSession();
    await ac.close();
    return result;
  }, box);
}

/** Half the L1 distance between two histograms: the share of the box whose luminance changed bin. */
export function histChange(a: number[], b: number[]): number {
  return a.reduce((sum, v, i) => sum + Math.abs(v - (b[i] ?? 0)), 0) / 2;
}

/** Each display frame's change from the one before (the first: 0). */
export function changes(samples: Sample[]): number[] {
  return samples.map((x, i) => (i === 0 ? 0 : histChange(x.hist, samples[i - 1]!.hist)));
}
