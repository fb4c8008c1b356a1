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

/** How the engine's Opus encoder is asked to send, through the offer it applies (below). */
export interface OpusSendParams {
  /** Milliseconds of audio per packet (`a=ptime`). */
  frameMs: number;
  /** The encoder's bitrate (fmtp `maxaveragebitrate`), bit/s. */
  bitrateBps: number;
}

/**
 * The offer with its audio section asking for `params`: `a=ptime:<frameMs>` (any ptime it had
 * replaced) and `maxaveragebitrate` on every Opus format's fmtp (added, or replacing the offer's).
 * libwebrtc configures the Opus encoder it sends with from the remote description: the frame is
 * the next supported length at or above ptime (10, 20, 40, 60 … 120 ms), the bitrate that one
 * (docs/design.md §13.8).
 */
export function withOpusSendParams(sdp: string, params: OpusSendParams): string {
  const lines = sdp.split(/\r?\n/);
  const trailing = lines.at(-1) === '' ? lines.pop() : undefined;
  const out: string[] = [];
  let audio: string[] | undefined;
  const flush = (): void => {
    if (audio) out.push(...opusSection(audio, params));
    audio = undefined;
  };
  for (const l of lines) {
    if (l.startsWith('m=')) {
      flush();
      if (l.startsWith('m=audio ')) audio = [];
    }
    (audio ?? out).push(l);
  }
  flush();
  if (trailing !== undefined) out.push(trailing);
  return out.join('\r\n');
}

function opusSection(section: string[], { frameMs, bitrateBps }: OpusSendParams): string[] {
  const pts = section
    .map((l) => /^a=rtpmap:(\d+) opus\//i.exec(l)?.[1])
    .filter((pt): pt is string => pt !== undefined);
  const withFmtp = new Set<string>();
  const out = section
    .filter((l) => !l.startsWith('a=ptime:'))
    .map((l) => {
      const m = /^a=fmtp:(\d+) (.*)$/.exec(l);
      if (!m || !pts.includes(m[1]!)) return l;
      withFmtp.add(m[1]!);
      const kept = m[2]!.split(';').filter((p) => p.trim() !== '' && !/^\s*maxaveragebitrate=/i.test(p));
      return `a=fmtp:${m[1]} ${[...kept, `maxaveragebitrate=${bitrateBps}`].join(';')}`;
    });
  for (const pt of pts.filter((p) => !withFmtp.has(p)))
    out.push(`a=fmtp:${pt} maxaveragebitrate=${bitrateBps}`);
  out.push(`a=ptime:${frameMs}`);
  return out;
}

/**
 * What the engine's video sender starts at, kbit/s, before bandwidth estimation has measured
 * anything (libwebrtc's own start is 300). Below 300 kbit/s for the video itself libwebrtc drops
 * the first frames of anything larger than 320×240 (its "initial frame drop", for sizes it deems
 * too large for the bitrate) and asks for a lower resolution: the first frame then reached a
 * viewer about 170 ms after the connection (bench/startup), instead of about 30 ms.
 */
export const VIDEO_START_BITRATE_KBPS = 1000;

const MEDIA_CODECS = new Set(['vp8', 'vp9', 'av1', 'h264']);

/**
 * The offer with `x-google-start-bitrate=<kbps>` on every video codec's fmtp (added, or replacing
 * the offer's): libwebrtc takes the send side's start bitrate from the codec parameters of the
 * remote description it applies.
 */
export function withVideoStartBitrate(sdp: string, kbps: number): string {
  const lines = sdp.split(/\r?\n/);
  const pts = new Set<string>();
  let video = false;
  for (const l of lines) {
    if (l.startsWith('m=')) video = l.startsWith('m=video ');
    const m = /^a=rtpmap:(\d+) ([\w-]+)\//.exec(l);
    if (video && m && MEDIA_CODECS.has(m[2]!.toLowerCase())) pts.add(m[1]!);
  }
  const param = `x-google-start-bitrate=${kbps}`;
  const withFmtp = new Set<string>();
  const out = lines.map((l) => {
    const m = /^a=fmtp:(\d+) (.*)$/.exec(l);
    if (!m || !pts.has(m[1]!)) return l;
    withFmtp.add(m[1]!);
    const kept = m[2]!.split(';').filter((p) => p.trim() !== '' && !/^\s*x-google-start-bitrate=/i.test(p));
    return `a=fmtp:${m[1]} ${[...kept, param].join(';')}`;
  });
  return out
    .flatMap((l) => {
      const pt = /^a=rtpmap:(\d+) /.exec(l)?.[1];
      return pt && pts.has(pt) && !withFmtp.has(pt) ? [l, `a=fmtp:${pt} ${param}`] : [l];
    })
    .join('\r\n');
}
