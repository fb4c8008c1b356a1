/**
 * The SDK's client rendering watched by headless Chromium, for bench:avsync's client row: the
 * server from the built CLI, the integrator's page (e2e/harness/browser.ts `sdkPage`, the SDK from
 * `/sdk/mouthpiece.js`, its `#avatar` made 512 CSS px so the canvas is the avatar's 512² design
 * space, as the video path's frames are), `render: 'client'`, and av-probe.js reading the mouth
 * box of the SDK's canvas on every display refresh and the audio from the SDK's audio element.
 * The avatar and mouth box are the video path's (av-session.ts).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, type TestBrowser } from '../../e2e/harness/browser.js';
import { startServer } from '../../e2e/harness/server.js';
import { BUILTIN_AVATARS_DIR, loadAvatarPack } from '../../packages/engine/dist/avatar/catalog.js';
import { geometry } from '../../packages/draw/dist/index.js';
import { vectorManifest } from '../../packages/engine/dist/avatar/manifest.js';
import { AUDIO_FLOOR, AVATAR, sustained, wait, type AvSession, type ProbeLogs } from './av-session.js';

const PROBE = fileURLToPath(new URL('./av-probe.js', import.meta.url));
const CANVAS_CSS_PX = 512;

/** What bench:avsync needs of a watched session, in either render mode. */
export type AvSyncSession = Pick<
  AvSession,
  'idle' | 'openAbove' | 'sayText' | 'logs' | 'settle' | 'close'
> & {
  /** The display's refresh interval as the probe measured it (client rendering only). */
  refreshMs(): Promise<number | undefined>;
};

interface Sdk {
  sayText(text: string, turnId: string): Promise<unknown>;
  interrupt(): Promise<void>;
  endSession(): Promise<void>;
}
interface SdkWindow {
  mp: Sdk;
  pcs: RTCPeerConnection[];
  mpProbe: {
    startCanvas(canvas: HTMLCanvasElement, audio: HTMLAudioElement, pc: RTCPeerConnection, box: object): void;
    since(t0: number): ProbeLogs;
    refreshMs?: number;
  };
}

export async function openClientAvSession(voiceId = 'en-us-female'): Promise<AvSyncSession> {
  const server = await startServer({ MOUTHPIECE_LOG_LEVEL: 'warn' });
  let browser: TestBrowser | undefined;
  try {
    browser = await launchBrowser();
    const page = await browser.sdkPage(server.url);
    await page.addScriptTag({ path: PROBE });
    const manifest = vectorManifest(loadAvatarPack(join(BUILTIN_AVATARS_DIR, AVATAR)).manifest);
    const g = geometry(manifest);
    const box = { x: Math.round(g.cx - 50), y: Math.round(g.mouthY - 22), w: 100, h: 50 };
    const args = {
      baseUrl: server.url,
      credential: server.secret,
      avatarId: AVATAR,
      voiceId,
      box,
      px: CANVAS_CSS_PX,
    };
    const err = await page.evaluate(async (a) => {
      const w = window as unknown as SdkWindow & { Mouthpiece: any };
      const container = document.querySelector<HTMLElement>('#avatar')!;
      container.style.width = `${a.px}px`;
      container.style.height = `${a.px}px`;
      w.pcs = [];
      const Original = RTCPeerConnection;
      (w as any).RTCPeerConnection = class extends Original {
        constructor(c?: RTCConfiguration) {
          super(c);
          w.pcs.push(this);
        }
      };
      const s = new w.Mouthpiece.AvatarSession({
        baseUrl: a.baseUrl,
        credential: a.credential,
        logLevel: 'warn',
        render: 'client',
      });
      let drawn = false;
      let fallback = '';
      s.on('videoReady', () => (drawn = true));
      s.on('renderFallback', (e: { reason: string }) => (fallback = e.reason));
      await s.createSession({ avatarId: a.avatarId, voiceId: a.voiceId, videoContainerId: 'avatar' });
      const until = performance.now() + 15000;
      while (performance.now() < until && !drawn) await new Promise((r) => setTimeout(r, 50));
      if (fallback) return `the SDK fell back to video (${fallback})`;
      if (!drawn) return 'no canvas frame drawn in 15 s';
      w.mp = s;
      const canvas = container.querySelector('canvas')!;
      const audio = container.querySelector('audio')!;
      if (canvas.width !== a.px) return `the canvas is ${canvas.width} px wide, not ${a.px}`;
      w.mpProbe.startCanvas(canvas, audio, w.pcs.at(-1)!, a.box);
      return '';
    }, args);
    if (err) throw new Error(err);
    const t0 = await page.evaluate(() => performance.now());
    await wait(2500);
    const idleFrames = (
      await page.evaluate((t) => (window as unknown as SdkWindow).mpProbe.since(t), t0)
    ).frames.map(([, d]) => d);
    const idle = {
      min: Math.min(...idleFrames),
      max: Math.max(...idleFrames),
      mean: idleFrames.reduce((a, b) => a + b, 0) / idleFrames.length,
    };
    const b = browser;
    const s: AvSyncSession = {
      idle,
      openAbove: idle.max + 25,
      sayText: (text, turnId) =>
        page.evaluate(
          async (x) => {
            const t = performance.now();
            await (window as unknown as SdkWindow).mp.sayText(x.text, x.turnId);
            return t;
          },
          { text, turnId },
        ),
      logs: (t) => page.evaluate((x) => (window as unknown as SdkWindow).mpProbe.since(x), t),
      async settle() {
        const t = await page.evaluate(async () => {
          const at = performance.now();
          await (window as unknown as SdkWindow).mp.interrupt();
          return at;
        });
        for (let i = 0; i < 50; i++) {
          await wait(100);
          const { audio } = await s.logs(t);
          if (!Number.isNaN(sustained(audio, t, (v) => v < AUDIO_FLOOR / 2, 300))) return;
        }
      },
      refreshMs: () => page.evaluate(() => (window as unknown as SdkWindow).mpProbe.refreshMs),
      async close() {
        await page.evaluate(() => (window as unknown as SdkWindow).mp.endSession()).catch(() => undefined);
        await b.close();
        await server.stop();
      },
    };
    return s;
  } catch (e) {
    await browser?.close();
    await server.stop();
    throw e;
  }
}
