/**
 * The page side of the soak (soak.bench-run.ts), run by page.evaluate() in an integrator's SDK page:
 * a session shown as video that says its text again the moment each turn ends, and its counters.
 */
import type { PageSessionArgs } from '../lib/page-session.js';

/** What a soak page has done so far (cumulative). */
export interface PageCounters {
  turns: number;
  failed: number;
  framesDecoded: number;
}

/** Starts the page's session speaking for good; '' or what went wrong. */
export async function startPageSpeaking(a: PageSessionArgs): Promise<string> {
  const w = window as any;
  const soak = { turns: 0, failed: 0, pcs: [] as RTCPeerConnection[] };
  w.mpSoak = soak;
  const Original = RTCPeerConnection;
  w.RTCPeerConnection = class extends Original {
    constructor(c?: RTCConfiguration) {
      super(c);
      soak.pcs.push(this);
    }
  };
  const s = new w.Mouthpiece.AvatarSession({
    baseUrl: a.baseUrl,
    credential: a.credential,
    logLevel: 'warn',
  });
  const say = () =>
    s.sayText(a.text).catch(() => {
      soak.failed++;
    });
  s.on('speakingEnd', () => {
    soak.turns++;
    setTimeout(say, 300);
  });
  let ready = false;
  s.on('videoReady', () => (ready = true));
  await s.createSession({ avatarId: a.avatarId, voiceId: a.voiceId, videoContainerId: 'avatar' });
  const until = performance.now() + 15000;
  while (performance.now() < until && !ready) await new Promise((r) => setTimeout(r, 50));
  if (!ready) return 'no video frame in 15 s';
  w.mp = s;
  await say();
  return '';
}

/** The page's counters now: turns ended, say-text calls refused, video frames its connections decoded. */
export async function pageCounters(): Promise<PageCounters> {
  const soak = (window as any).mpSoak as { turns: number; failed: number; pcs: RTCPeerConnection[] };
  let framesDecoded = 0;
  for (const pc of soak.pcs)
    (await pc.getStats()).forEach((x: any) => {
      if (x.type === 'inbound-rtp' && x.kind === 'video') framesDecoded += x.framesDecoded ?? 0;
    });
  return { turns: soak.turns, failed: soak.failed, framesDecoded };
}
