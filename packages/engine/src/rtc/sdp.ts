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
