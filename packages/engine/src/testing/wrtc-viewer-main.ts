/**
 * A libwebrtc viewer in its own process (libwebrtc can crash at a natural exit, so it never loads
 * in the test runner's): receive-only audio and video with the `events` channel, saying `ready`
 * once the channel opens, as the SDK does. Driven by testing/wrtc-viewer.ts over IPC.
 */
import wrtc, { type RTCPeerConnection } from '@roamhq/wrtc';
import type { ViewerToChild, ViewerFromChild } from './wrtc-viewer.js';

let pc: RTCPeerConnection | undefined;
const send = (m: ViewerFromChild): void => {
  if (process.connected) process.send!(m);
};

async function offer(): Promise<void> {
  const peer = new wrtc.RTCPeerConnection({ iceServers: [] });
  pc = peer;
  peer.addTransceiver('video', { direction: 'recvonly' });
  peer.addTransceiver('audio', { direction: 'recvonly' });
  const channel = peer.createDataChannel('events', { ordered: true });
  channel.onopen = () => channel.send(JSON.stringify({ type: 'ready' }));
  channel.onmessage = ({ data }) => send({ kind: 'message', message: JSON.parse(String(data)) as unknown });
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

process.on('message', (m: ViewerToChild) => {
  switch (m.kind) {
    case 'offer':
      void offer();
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
