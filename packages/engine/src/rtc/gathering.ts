/**
 * When a viewer peer's answer may leave (viewer-peer.ts). A WHEP answer cannot be followed by more
 * server candidates, so it carries what libwebrtc gathered by then. libwebrtc gathers in phases
 * 50 ms apart: every UDP host candidate at once (a few ms after setLocalDescription), then TCP,
 * and calls gathering complete about 100 ms later. The answer goes once the UDP candidates are in
 * (UDP_SETTLE_MS after the last of them), at completion if that comes first, or after
 * GATHER_TIMEOUT_MS whatever happened. Left out: the engine's passive TCP host candidates, which
 * only a browser that has no UDP and no TURN server would use (such a browser reaches the engine
 * through TURN over TCP or TLS: docs/deploy.md).
 */
import type { RTCPeerConnection } from '@roamhq/wrtc';

export const GATHER_TIMEOUT_MS = 2000;
/** After the last UDP candidate, the answer waits this long for another (more interfaces). */
export const UDP_SETTLE_MS = 10;

/** The parts of a libwebrtc peer connection this watches (its handlers are taken, then freed). */
export type GatheringPeer = Pick<
  RTCPeerConnection,
  'iceGatheringState' | 'onicecandidate' | 'onicegatheringstatechange'
>;

export function answerCandidatesReady(pc: GatheringPeer): Promise<void> {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    let settle: ReturnType<typeof setTimeout> | undefined;
    const done = (): void => {
      clearTimeout(timer);
      clearTimeout(settle);
      pc.onicecandidate = null;
      pc.onicegatheringstatechange = null;
      resolve();
    };
    const timer = setTimeout(done, GATHER_TIMEOUT_MS);
    pc.onicecandidate = (e) => {
      if (!e.candidate || !/ udp /i.test(` ${e.candidate.candidate} `)) return;
      clearTimeout(settle);
      settle = setTimeout(done, UDP_SETTLE_MS);
    };
    pc.onicegatheringstatechange = () => {
      if (pc.iceGatheringState === 'complete') done();
    };
  });
}
