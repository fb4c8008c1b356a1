/**
 * A WHEP viewer: recvonly video and audio plus the `events` data channel; the offer goes out
 * after gathering (so it works with or without trickle), later candidates are trickled by PATCH
 * when the server accepts it, and closeWhep() DELETEs the resource.
 */
import { ClientErrorCode, DATA_CHANNEL_LABEL } from '@mouthpiece/protocol';
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
  const channel = pc.createDataChannel(DATA_CHANNEL_LABEL, { ordered: true });
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

/** How long an end waits for the viewer's DELETE before it ends the session anyway. */
export const DELETE_WAIT_MS = 2000;

/**
 * Closes a viewer: DELETEs its resource, unless the session is known to be gone (the server
 * ended it, or a newer viewer replaced this one: the DELETE could only answer 404 or 410, and a
 * browser prints every such answer as a console error), and closes the peer. Resolves once the
 * DELETE is answered, whatever the answer (404 or 410: the resource is already gone, which is
 * what was asked), or after DELETE_WAIT_MS; never rejects.
 */
export function closeWhep(
  c: WhepConnection,
  o: { keepalive?: boolean; sessionGone?: boolean } = {},
): Promise<void> {
  const deleted = o.sessionGone
    ? Promise.resolve()
    : new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, DELETE_WAIT_MS);
        const done = (): void => {
          clearTimeout(timer);
          resolve();
        };
        fetch(c.resource, { method: 'DELETE', ...(o.keepalive ? { keepalive: true } : {}) }).then(done, done);
      });
  c.channel.close();
  c.pc.close();
  return deleted;
}
