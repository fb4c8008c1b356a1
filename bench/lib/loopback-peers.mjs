// A libwebrtc sender and receiver in this process (the render and encoder benches), and the CPU
// time of this process's threads from /proc: robust to other processes sharing the cores, which
// stretch wall-clock figures.
import { readdirSync, readFileSync } from 'node:fs';
import wrtc from '@roamhq/wrtc';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A sender of `track` and its receiver, connected; resolves once ICE is. `offer` and `answer`
 * rewrite the SDP each side applies (the offer to both, the answer to the sender: it is what the
 * sender's encoder is configured from).
 */
export async function loopbackPeers(track, { offer = (s) => s, answer = (s) => s } = {}) {
  const tx = new wrtc.RTCPeerConnection();
  const rx = new wrtc.RTCPeerConnection();
  tx.onicecandidate = (e) => e.candidate && rx.addIceCandidate(e.candidate).catch(() => {});
  rx.onicecandidate = (e) => e.candidate && tx.addIceCandidate(e.candidate).catch(() => {});
  tx.addTrack(track, new wrtc.MediaStream());
  const o = { type: 'offer', sdp: offer((await tx.createOffer()).sdp) };
  await tx.setLocalDescription(o);
  await rx.setRemoteDescription(o);
  const a = await rx.createAnswer();
  await rx.setLocalDescription(a);
  await tx.setRemoteDescription({ type: 'answer', sdp: answer(a.sdp) });
  for (let i = 0; i < 100 && tx.connectionState !== 'connected'; i++) await sleep(50);
  if (tx.connectionState !== 'connected') throw new Error('the loopback peers did not connect');
  return { tx, rx };
}

/** The sender's video outbound-rtp stats (framesEncoded, totalEncodeTime, bytesSent, qpSum, …). */
export async function outboundVideo(tx) {
  let out = { framesEncoded: 0, totalEncodeTime: 0, frameWidth: 0, bytesSent: 0, qpSum: 0 };
  (await tx.getStats()).forEach((s) => {
    if (s.type === 'outbound-rtp' && (s.kind === 'video' || s.mediaType === 'video')) out = { ...out, ...s };
  });
  return out;
}

/** CPU ms so far of this process's JS thread and of libwebrtc's encoder thread(s) (EncoderQueue). */
export function threadCpu() {
  const out = { main: 0, encoder: 0 };
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      const ms = ((Number(f[11]) + Number(f[12])) * 1000) / 100;
      if (tid === String(process.pid)) out.main += ms;
      else if (comm.startsWith('EncoderQueue')) out.encoder += ms;
    } catch {
      // the thread exited
    }
  }
  return out;
}
