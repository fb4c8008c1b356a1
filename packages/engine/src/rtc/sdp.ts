/** SDP helpers for WHEP: codec preference by reordering the offer, trickle-ICE fragments. */

/** Moves the payload types of `codec` to the front of the `m=kind` line (M106 sends the first). */
export function preferCodec(sdp: string, kind: 'video' | 'audio', codec: string): string {
  const lines = sdp.split(/\r?\n/);
  let section: string | undefined;
  const pts: string[] = [];
  for (const l of lines) {
    if (l.startsWith('m=')) section = l.slice(2).split(' ')[0];
    const m = /^a=rtpmap:(\d+) ([\w-]+)\//.exec(l);
    if (section === kind && m && m[2]!.toLowerCase() === codec.toLowerCase()) pts.push(m[1]!);
  }
  if (pts.length === 0) return sdp;
  return lines
    .map((l) => {
      if (!l.startsWith(`m=${kind} `)) return l;
      const parts = l.split(' ');
      const head = parts.slice(0, 3);
      const rest = parts.slice(3).filter((p) => !pts.includes(p));
      return [...head, ...pts, ...rest].join(' ');
    })
    .join('\r\n');
}

/** Whether the offer's video section lists a codec. */
export function offersCodec(sdp: string, kind: 'video' | 'audio', codec: string): boolean {
  let section: string | undefined;
  for (const l of sdp.split(/\r?\n/)) {
    if (l.startsWith('m=')) section = l.slice(2).split(' ')[0];
    const m = /^a=rtpmap:\d+ ([\w-]+)\//.exec(l);
    if (section === kind && m && m[1]!.toLowerCase() === codec.toLowerCase()) return true;
  }
  return false;
}

export function hasMedia(sdp: string, kind: 'video' | 'audio'): boolean {
  return new RegExp(`^m=${kind} `, 'm').test(sdp);
}

/** The video codecs the engine can send (libwebrtc M106 has no H.264 encoder here). */
export const SENDABLE_VIDEO_CODECS = ['VP8', 'VP9', 'AV1'] as const;

/**
 * Why an offer cannot be answered, or undefined when it can: not an SDP offer with audio or
 * video (`invalid_request`), or video in no codec the engine sends (`unsupported_offer`).
 * The real peer and the test fake decide by this one rule.
 */
export function offerProblem(
  sdp: string,
): { code: 'invalid_request' | 'unsupported_offer'; message: string } | undefined {
  if (!sdp.startsWith('v=0') || (!hasMedia(sdp, 'video') && !hasMedia(sdp, 'audio')))
    return { code: 'invalid_request', message: 'The offer is not an SDP offer with audio or video' };
  if (hasMedia(sdp, 'video') && !SENDABLE_VIDEO_CODECS.some((c) => offersCodec(sdp, 'video', c)))
    return {
      code: 'unsupported_offer',
      message: `The offer has no video codec the server can send (${SENDABLE_VIDEO_CODECS.join(', ')})`,
    };
  return undefined;
}

export interface TrickleCandidate {
  candidate: string;
  sdpMid: string | null;
  sdpMLineIndex: number | null;
}

/** Candidates of an `application/trickle-ice-sdpfrag` body, with the mid of their section. */
export function parseSdpFragment(frag: string): { candidates: TrickleCandidate[]; endOfCandidates: boolean } {
  const candidates: TrickleCandidate[] = [];
  let mid: string | null = null;
  let mline = -1;
  let end = false;
  for (const l of frag.split(/\r?\n/)) {
    if (l.startsWith('m=')) {
      mline++;
      mid = null;
    } else if (l.startsWith('a=mid:')) mid = l.slice(6).trim();
    else if (l.startsWith('a=candidate:'))
      candidates.push({
        candidate: l.slice(2).trim(),
        sdpMid: mid,
        sdpMLineIndex: mid === null ? Math.max(0, mline) : null,
      });
    else if (l.startsWith('a=end-of-candidates')) end = true;
  }
  return { candidates, endOfCandidates: end };
}

export function hasDataChannel(sdp: string): boolean {
  return /^m=application /m.test(sdp);
}

/**
 * The offer with `a=ptime:<frameMs>` in its audio section (any ptime it had replaced). libwebrtc
 * reads the remote description's ptime for the Opus frames it sends (the next supported length at
 * or above it: 10, 20, 40, 60 … 120 ms), so applying this offer makes the engine packetise audio
 * that way (docs/design.md §13.8).
 */
export function withAudioPtime(sdp: string, frameMs: number): string {
  const lines = sdp.split(/\r?\n/);
  const out: string[] = [];
  let inAudio = false;
  const close = (): void => {
    if (inAudio) out.push(`a=ptime:${frameMs}`);
    inAudio = false;
  };
  for (const l of lines) {
    if (l.startsWith('m=')) {
      close();
      inAudio = l.startsWith('m=audio ');
    }
    if (inAudio && l.startsWith('a=ptime:')) continue;
    if (l === '' && inAudio) close(); // the offer's final line break
    out.push(l);
  }
  close();
  return out.join('\r\n');
}
