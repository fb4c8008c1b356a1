/**
 * WHEP signalling over HTTP, as the transport (whep-transport.ts) uses it: the offer goes out at
 * once to a server known to take trickled candidates (init-client's `trickleIce`, or an earlier
 * answer's Accept-Patch), else after gathering; candidates found after the offer are trickled by
 * PATCH when the server accepts it, and the resource is DELETEd when the viewer closes.
 */
import { CodedError, ClientErrorCode } from '@mouthpiece/protocol';
import { MouthpieceError } from './errors.js';

/** The network and libwebrtc a WHEP viewer talks to: the browser's, or a test's fakes. */
export interface WhepIo {
  peer(config: RTCConfiguration): RTCPeerConnection;
  fetch(url: string, init: RequestInit): Promise<Response>;
}

export const browserWhepIo: WhepIo = {
  peer: (config) => new RTCPeerConnection(config),
  fetch: (url, init) => fetch(url, init),
};

/** The server answered the offer with something else than 201 (its error body's code and reason). */
export class WhepOfferRejected extends CodedError {
  static override code = 'ERR_WHEP_OFFER_REJECTED';
  constructor(
    readonly status: number,
    readonly body: { code?: string; reason?: string } = {},
  ) {
    super(`WHEP offer rejected: HTTP ${status}${body.reason ? ` (${body.reason})` : ''}`);
    this.name = 'WhepOfferRejected';
  }
}

/** A failed WHEP offer as the SDK reports it: 404/410 mean the session is gone. */
export function whepFailure(err: unknown): MouthpieceError {
  if (err instanceof MouthpieceError) return err;
  const status = err instanceof WhepOfferRejected ? err.status : undefined;
  const body = err instanceof WhepOfferRejected ? err.body : {};
  return new MouthpieceError(
    status === 404 || status === 410
      ? ClientErrorCode.SESSION_NOT_FOUND
      : ClientErrorCode.RTC_CONNECTION_FAILED,
    err instanceof Error ? err.message : String(err),
    status
      ? {
          status,
          ...(typeof body.code === 'string' ? { code: body.code } : {}),
          ...(typeof body.reason === 'string' ? { reason: body.reason } : {}),
        }
      : undefined,
  );
}

const GATHER_WAIT_MS = 1500;

/** Resolves when ICE gathering completes, or after GATHER_WAIT_MS (the rest is trickled). */
export function gathered(pc: RTCPeerConnection, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (pc.iceGatheringState === 'complete') return resolve();
    const t = setTimeout(resolve, GATHER_WAIT_MS);
    pc.addEventListener(
      'icegatheringstatechange',
      () => {
        if (pc.iceGatheringState !== 'complete') return;
        clearTimeout(t);
        resolve();
      },
      { signal },
    );
  });
}

export interface WhepAnswer {
  /** The viewer's resource URL (Location), for PATCH and DELETE. */
  resource: string;
  sdp: string;
  /** The server takes trickled candidates (Accept-Patch: trickle-ice-sdpfrag). */
  trickle: boolean;
}

/** POSTs the offer; anything but 201 throws WhepOfferRejected. `signal` abandons it. */
export async function postOffer(
  io: WhepIo,
  whepUrl: string,
  offerSdp: string,
  signal?: AbortSignal,
): Promise<WhepAnswer> {
  const res = await io.fetch(whepUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/sdp' },
    body: offerSdp,
    ...(signal ? { signal } : {}),
  });
  if (res.status !== 201) {
    const body = (await res.json().catch(() => ({}))) as { code?: string; reason?: string };
    throw new WhepOfferRejected(res.status, body ?? {});
  }
  return {
    resource: new URL(res.headers.get('Location') ?? whepUrl, whepUrl).toString(),
    sdp: await res.text(),
    trickle: (res.headers.get('Accept-Patch') ?? '').includes('trickle-ice-sdpfrag'),
  };
}

/** The `application/trickle-ice-sdpfrag` body of candidates (each under its section's mid). */
export function candidateFragment(cs: ReadonlyArray<Pick<RTCIceCandidate, 'candidate' | 'sdpMid'>>): string {
  return cs.map((c) => `a=mid:${c.sdpMid ?? '0'}\r\na=${c.candidate}\r\n`).join('');
}

/** Trickles candidates to the resource in one PATCH; a failed PATCH is ignored (ICE copes without it). */
export function patchCandidates(
  io: WhepIo,
  resource: string,
  cs: ReadonlyArray<Pick<RTCIceCandidate, 'candidate' | 'sdpMid'>>,
): void {
  if (cs.length === 0) return;
  void io
    .fetch(resource, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/trickle-ice-sdpfrag' },
      body: candidateFragment(cs),
    })
    .catch(() => undefined);
}

/** How long an end waits for the viewer's DELETE before it ends the session anyway. */
export const DELETE_WAIT_MS = 2000;

/**
 * DELETEs a viewer's resource. Resolves once the DELETE is answered, whatever the answer (404 or
 * 410: the resource is already gone, which is what was asked), or after DELETE_WAIT_MS; never rejects.
 */
export function deleteResource(io: WhepIo, resource: string, keepalive: boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, DELETE_WAIT_MS);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    io.fetch(resource, { method: 'DELETE', ...(keepalive ? { keepalive: true } : {}) }).then(done, done);
  });
}
