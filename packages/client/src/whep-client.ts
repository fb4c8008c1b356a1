/**
 * A WHEP viewer: recvonly video and audio plus the `events` data channel; the offer goes out
 * after gathering (so it works with or without trickle), later candidates are trickled by PATCH
 * when the server accepts it, and close() DELETEs the resource.
 */
import { ClientErrorCode } from '@mouthpiece/protocol';
import { MouthpieceError } from './errors.js';

export interface WhepConnection {
  pc: RTCPeerConnection;
  channel: RTCDataChannel;
  stream: MediaStream;
  resource: string;
}

const GATHER_WAIT_MS = 1500;

export async function connectWhep(
  whepUrl: string,
  iceServers: RTCIceServer[],
  policy: RTCIceTransportPolicy,
): Promise<WhepConnection> {
  const pc = new RTCPeerConnection({ iceServers, iceTransportPolicy: policy, bundlePolicy: 'max-bundle' });
  const stream = new MediaStream();
  pc.ontrack = (e) => stream.addTrack(e.track);
  pc.addTransceiver('video', { direction: 'recvonly' });
  pc.addTransceiver('audio', { direction: 'recvonly' });
  const channel = pc.createDataChannel('events', { ordered: true });
  const late: RTCIceCandidate[] = [];
  let gathered = false;
  pc.onicecandidate = (e) => {
    if (gathered && e.candidate) late.push(e.candidate);
  };
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise<void>((resolve) => {
    if (pc.iceGatheringState === 'complete') return resolve();
    const t = setTimeout(resolve, GATHER_WAIT_MS);
    pc.addEventListener('icegatheringstatechange', () => {
      if (pc.iceGatheringState === 'complete') {
        clearTimeout(t);
        resolve();
      }
    });
  });
  gathered = true;
  const res = await fetch(whepUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/sdp' },
    body: pc.localDescription!.sdp,
  });
  if (res.status !== 201) {
    pc.close();
    throw Object.assign(new Error(`WHEP offer rejected: HTTP ${res.status}`), { status: res.status });
  }
  const resource = new URL(res.headers.get('Location') ?? whepUrl, whepUrl).toString();
  await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
  if ((res.headers.get('Accept-Patch') ?? '').includes('trickle-ice-sdpfrag')) {
    const send = (c: RTCIceCandidate) =>
      void fetch(resource, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/trickle-ice-sdpfrag' },
        body: `a=mid:${c.sdpMid ?? '0'}\r\na=${c.candidate}\r\n`,
      }).catch(() => undefined);
    late.forEach(send);
    pc.onicecandidate = (e) => e.candidate && send(e.candidate);
  }
  return { pc, channel, stream, resource };
}

/** A failed WHEP offer as the SDK reports it: 404/410 mean the session is gone. */
export function whepFailure(err: unknown): MouthpieceError {
  const status = (err as { status?: number }).status;
  return new MouthpieceError(
    status === 404 || status === 410
      ? ClientErrorCode.SESSION_NOT_FOUND
      : ClientErrorCode.RTC_CONNECTION_FAILED,
    err instanceof Error ? err.message : String(err),
    status ? { status } : undefined,
  );
}

export function closeWhep(c: WhepConnection, keepalive = false): void {
  void fetch(c.resource, { method: 'DELETE', ...(keepalive ? { keepalive: true } : {}) }).catch(
    () => undefined,
  );
  c.channel.close();
  c.pc.close();
}
