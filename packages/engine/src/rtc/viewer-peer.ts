/**
 * One WHEP viewer: a libwebrtc peer that answers the viewer's offer with our audio and video
 * tracks (VP8 preferred, Opus), after ICE gathering completes (so non-trickle players get every
 * candidate), and carries the `events` data channel when the offer has one (JSON text messages,
 * and binary animation frames for a viewer whose offer has no video m-line: it draws the avatar).
 */
import wrtc, {
  type MediaStreamTrack,
  type RTCDataChannel,
  type RTCPeerConnection,
  type RtcIceServer,
} from '@roamhq/wrtc';
import {
  DATA_CHANNEL_LABEL,
  DATA_CHANNEL_PROTOCOL,
  parseClientMessage,
  type ServerMessage,
} from '@mouthpiece/protocol';
import { EngineError } from '../host/types.js';
import type { Peer, PeerEvents } from './peer.js';
import { filterOfferCandidates } from './candidate-filter.js';
import {
  hasDataChannel,
  hasMedia,
  offerProblem,
  parseSdpFragment,
  preferCodec,
  withOpusSendParams,
  type OpusSendParams,
} from './sdp.js';

const GATHER_TIMEOUT_MS = 2000;
/** Nothing received from a connected viewer for this long: it is gone (see #watchSilence). */
export const SILENT_LOST_MS = 2000;
const SILENCE_POLL_MS = 500;
/**
 * How Opus is sent to a viewer that draws the avatar itself (its offer has no video): 40 ms
 * packets instead of libwebrtc's 20 halve the packets the engine's pacer and network threads (and
 * the viewer) handle per session, and at 64 kbit/s Opus codes speech in its CELT mode, which costs
 * the encoder thread half of what 32 kbit/s SILK/hybrid does (docs/design.md §13.8). Viewers with
 * video keep libwebrtc's defaults (20 ms, 32 kbit/s).
 */
export const CLIENT_RENDER_OPUS: OpusSendParams = { frameMs: 40, bitrateBps: 64_000 };

export class ViewerPeer implements Peer {
  readonly viewerId: string;
  readonly hasEvents: boolean;
  readonly hasVideo: boolean;
  readonly #pc: RTCPeerConnection;
  readonly #tracks: MediaStreamTrack[];
  #channel: RTCDataChannel | undefined;
  /**
   * The channel is open, as its events said: asking libwebrtc (`readyState`) is a call to another
   * thread, which at 25 animation frames a second per session cost as much as the send itself.
   */
  #channelOpen = false;
  #closed = false;
  #connected = false;
  #ready = false;
  readonly #accept: (candidate: string) => boolean;
  #helloSent = false;
  #silence: NodeJS.Timeout | undefined;

  private constructor(
    viewerId: string,
    pc: RTCPeerConnection,
    tracks: MediaStreamTrack[],
    has: { events: boolean; video: boolean },
    accept: (candidate: string) => boolean,
  ) {
    this.#accept = accept;
    this.viewerId = viewerId;
    this.#pc = pc;
    this.#tracks = tracks;
    this.hasEvents = has.events;
    this.hasVideo = has.video;
  }

  static async answer(opts: {
    viewerId: string;
    sessionId: string;
    offerSdp: string;
    iceServers: RtcIceServer[];
    /** Absent: a session that sends no video (its video transceiver stays empty). */
    video?: MediaStreamTrack | undefined;
    audio: MediaStreamTrack;
    events: PeerEvents;
    /** Which of the viewer's ICE candidates to use (candidate-filter.ts); all when absent. */
    acceptCandidate?: (candidate: string) => boolean;
    /** The ports this peer may bind (wrtc-media.ts). */
    portRange?: { min: number; max: number };
    /** The turn playing now, told in `hello` (a page that reconnects mid-turn learns it still plays). */
    speaking?: () => string | undefined;
  }): Promise<{ peer: ViewerPeer; answerSdp: string }> {
    const { offerSdp } = opts;
    const problem = offerProblem(offerSdp);
    if (problem) {
      opts.video?.stop();
      opts.audio.stop();
      throw new EngineError(problem.code, problem.message);
    }
    const pc = new wrtc.RTCPeerConnection({
      iceServers: opts.iceServers,
      bundlePolicy: 'max-bundle',
      ...(opts.portRange ? { portRange: opts.portRange } : {}),
    });
    const accept = opts.acceptCandidate ?? (() => true);
    const peer = new ViewerPeer(
      opts.viewerId,
      pc,
      opts.video ? [opts.video, opts.audio] : [opts.audio],
      { events: hasDataChannel(offerSdp), video: hasMedia(offerSdp, 'video') },
      accept,
    );
    pc.ondatachannel = ({ channel }) =>
      peer.#attachChannel(channel, opts.sessionId, opts.events, opts.speaking ?? (() => undefined));
    const onState = (): void => {
      const s = pc.connectionState;
      if (s === 'connected' && !peer.#connected) {
        peer.#connected = true;
        opts.events.onConnected();
        peer.#watchSilence(opts.events);
        return;
      }
      if (s === 'disconnected' || s === 'failed') peer.#lost(opts.events);
      if ((s === 'failed' || s === 'closed') && !peer.#closed) opts.events.onDisconnected();
    };
    pc.onconnectionstatechange = onState;
    try {
      const offer = peer.hasVideo ? offerSdp : withOpusSendParams(offerSdp, CLIENT_RENDER_OPUS);
      const sdp = filterOfferCandidates(preferCodec(offer, 'video', 'VP8'), accept);
      await pc.setRemoteDescription({ type: 'offer', sdp });
      // both tracks in one stream: the answer's msid puts them in one sync group, so the browser
      // plays video in step with audio (without it each plays out on its own delay)
      const stream = new wrtc.MediaStream();
      for (const tr of pc.getTransceivers()) {
        const kind = tr.receiver.track.kind;
        await tr.sender.replaceTrack(kind === 'video' ? (opts.video ?? null) : opts.audio);
        tr.sender.setStreams(stream);
        tr.direction = 'sendonly';
      }
      const answer = await pc.createAnswer();
      await pc.setLocalDescription(answer);
      await waitForGathering(pc);
    } catch (err) {
      peer.close();
      if (err instanceof EngineError) throw err;
      const message = err instanceof Error ? err.message : String(err);
      throw /send parameters|codec/i.test(message)
        ? new EngineError('unsupported_offer', `The offer cannot be answered: ${message}`)
        : new EngineError('invalid_request', `The offer cannot be answered: ${message}`);
    }
    return { peer, answerSdp: pc.localDescription?.sdp ?? '' };
  }

  async addIceCandidates(fragment: string): Promise<void> {
    const { candidates } = parseSdpFragment(fragment);
    for (const c of candidates.filter((x) => this.#accept(x.candidate))) {
      try {
        await this.#pc.addIceCandidate(c);
      } catch {
        // a candidate we cannot use (other family, bad line) is skipped, as browsers do
      }
    }
  }

  send(message: ServerMessage): void {
    this.#send(JSON.stringify(message));
  }

  sendBinary(message: Uint8Array): void {
    this.#send(message);
  }

  #send(data: string | Uint8Array): void {
    const ch = this.#channel;
    if (!ch || !this.#channelOpen) return;
    try {
      ch.send(data);
    } catch {
      this.#channelOpen = false; // it closed under us; the next state change reports it
    }
  }

  /**
   * Sends a last message, stops the media at once, and closes the connection once the message
   * has left (the channel's buffer drained) or after `maxWaitMs`.
   */
  closeWith(message: ServerMessage, maxWaitMs = 1000): void {
    if (this.#closed) return;
    this.send(message);
    for (const t of this.#tracks) t.stop();
    const started = Date.now();
    const poll = (): void => {
      const buffered = this.#channel?.readyState === 'open' ? this.#channel.bufferedAmount : 0;
      if (buffered === 0 || Date.now() - started >= maxWaitMs) setTimeout(() => this.close(), 100);
      else setTimeout(poll, 20);
    };
    poll();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#silence);
    this.#channelOpen = false;
    try {
      this.#channel?.close();
    } catch {
      // already closed
    }
    for (const t of this.#tracks) t.stop();
    this.#pc.close();
  }

  /** ICE lost the viewer, or nothing came from it for SILENT_LOST_MS: tell once (until it is back). */
  #lost(events: PeerEvents): void {
    if (!this.#connected || this.#closed) return;
    this.#connected = false;
    events.onLost?.();
  }

  /**
   * Issue 21: a viewer whose network went away is noticed in about two seconds, not after ICE's
   * own timeouts (5–7 s here): a live browser sends RTCP feedback several times a second, so bytes
   * received on the transport that stop moving for SILENT_LOST_MS mean it is gone (onLost); bytes
   * moving again on a connected peer bring it back (onConnected).
   */
  #watchSilence(events: PeerEvents): void {
    if (this.#silence || !events.onLost) return;
    let received = -1;
    let movedAt = Date.now();
    let polling = false;
    this.#silence = setInterval(() => {
      if (polling || this.#closed) return;
      polling = true;
      void this.#pc
        .getStats()
        .then((stats) => {
          let bytes = 0;
          stats.forEach((r) => {
            if (r.type === 'transport') bytes += r.bytesReceived ?? 0;
          });
          const now = Date.now();
          if (bytes !== received) {
            received = bytes;
            movedAt = now;
            if (!this.#connected && !this.#closed && this.#pc.connectionState === 'connected') {
              this.#connected = true;
              events.onConnected();
            }
          } else if (now - movedAt >= SILENT_LOST_MS) this.#lost(events);
        })
        .catch(() => undefined)
        .finally(() => (polling = false));
    }, SILENCE_POLL_MS);
  }

  #attachChannel(
    channel: RTCDataChannel,
    sessionId: string,
    events: PeerEvents,
    speaking: () => string | undefined,
  ): void {
    if (channel.label !== DATA_CHANNEL_LABEL) return;
    this.#channel = channel;
    this.#channelOpen = channel.readyState === 'open';
    channel.onclose = () => {
      this.#channelOpen = false;
    };
    const hello = (): void => {
      if (this.#helloSent) return; // once, whether the channel opened before or after this
      this.#helloSent = true;
      const turnId = speaking();
      this.send({
        type: 'hello',
        sessionId,
        protocol: DATA_CHANNEL_PROTOCOL,
        ...(turnId !== undefined ? { speaking: turnId } : {}),
      });
      events.onChannelOpen?.();
    };
    channel.onopen = () => {
      this.#channelOpen = true;
      hello();
    };
    channel.onmessage = ({ data }) => {
      if (parseClientMessage(data)?.type === 'ready' && !this.#ready) {
        this.#ready = true;
        events.onReady();
      }
    };
    if (channel.readyState === 'open') hello();
  }
}

function waitForGathering(pc: RTCPeerConnection): Promise<void> {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, GATHER_TIMEOUT_MS);
    pc.onicegatheringstatechange = () => {
      if (pc.iceGatheringState === 'complete') {
        clearTimeout(timer);
        resolve();
      }
    };
  });
}
