/**
 * A libwebrtc viewer in its own process (libwebrtc can crash at a natural exit, so it never loads
 * in the test runner's): receive-only audio and video (audio alone when the offer is to carry no
 * video) with the `events` channel, saying `ready` once the channel opens, as the SDK does (and the
 * `frames` channel when asked, as the SDK's client rendering opens it); text messages are passed
 * on parsed, binary ones as bytes with their channel's label, and the RTP packets received per kind (and
 * the audio its decoder made of them) every 250 ms. Driven by testing/wrtc-viewer.ts over IPC.
 */
import wrtc, { type RTCDataChannel, type RTCPeerConnection } from '@roamhq/wrtc';
import { FRAMES_CHANNEL_INIT, FRAMES_CHANNEL_LABEL } from '@mouthpiece/protocol';
import type { ViewerToChild, ViewerFromChild } from './wrtc-viewer.js';

let pc: RTCPeerConnection | undefined;
const send = (m: ViewerFromChild): void => {
  if (process.connected) process.send!(m);
};

async function offer(video: boolean, frames: boolean): Promise<void> {
  const peer = new wrtc.RTCPeerConnection({ iceServers: [] });
  pc = peer;
  if (video) peer.addTransceiver('video', { direction: 'recvonly' });
  peer.addTransceiver('audio', { direction: 'recvonly' });
  const channel = peer.createDataChannel('events', { ordered: true });
  channel.binaryType = 'arraybuffer';
  channel.onopen = () => channel.send(JSON.stringify({ type: 'ready' }));
  const onMessage = (ch: RTCDataChannel) => (e: { data: unknown }) => {
    const data = e.data;
    if (typeof data === 'string') send({ kind: 'message', message: JSON.parse(data) as unknown });
    else if (data instanceof ArrayBuffer)
      send({ kind: 'binary', channel: ch.label, bytes: Array.from(new Uint8Array(data)) });
  };
  channel.onmessage = onMessage(channel);
  if (frames) {
    const ch = peer.createDataChannel(FRAMES_CHANNEL_LABEL, { ...FRAMES_CHANNEL_INIT });
    ch.binaryType = 'arraybuffer';
    ch.onmessage = onMessage(ch);
  }
  setInterval(() => void reportPackets(peer), 250).unref();
  peer.onconnectionstatechange = () => send({ kind: 'state', state: peer.connectionState });
  await peer.setLocalDescription(await peer.createOffer());
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 3000);
    peer.onicegatheringstatechange = () => {
      if (peer.iceGatheringState !== 'complete') return;
      clearTimeout(timer);
      resolve();
    };
  });
  send({ kind: 'offer', sdp: peer.localDescription?.sdp ?? '' });
}

/** RTP packets received per kind (inbound-rtp stats). */
async function reportPackets(peer: RTCPeerConnection): Promise<void> {
  if (peer.connectionState === 'closed') return;
  const report = await peer.getStats();
  report.forEach((r) => {
    if (r['type'] !== 'inbound-rtp') return;
    const kind = r['kind'] ?? r['mediaType'];
    // audio: the samples its decoder made from packets (received, less those it concealed)
    const decoded = Number(r['totalSamplesReceived'] ?? 0) - Number(r['concealedSamples'] ?? 0);
    if (typeof kind === 'string')
      send({
        kind: 'track',
        track: kind,
        packets: Number(r['packetsReceived'] ?? 0),
        ...(kind === 'audio' ? { decodedSamples: decoded } : {}),
      });
  });
}

process.on('message', (m: ViewerToChild) => {
  switch (m.kind) {
    case 'offer':
      void offer(m.video, m.frames);
      break;
    case 'answer':
      void pc?.setRemoteDescription({ type: 'answer', sdp: m.sdp });
      break;
    case 'close':
      pc?.close();
      process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
